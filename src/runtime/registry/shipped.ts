import { fileURLToPath } from 'node:url';

/**
 * The catalog shipped with the package, at the project root so that the same relative path finds it
 * from `src/` (tests, tsx) and from `dist/` (the installed command).
 */
export const SHIPPED_CATALOG_PATH = fileURLToPath(new URL('../../../catalog/default.json', import.meta.url));
