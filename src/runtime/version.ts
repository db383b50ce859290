import { readFileSync } from 'node:fs';

export const RUNTIME_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
