import { writeFile } from 'node:fs/promises';
import { registryOpenApiDocument } from './openapi-document.js';

const target = new URL('../openapi/registry.json', import.meta.url);
await writeFile(target, `${JSON.stringify(await registryOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
