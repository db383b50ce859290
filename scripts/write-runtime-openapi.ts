import { writeFile } from 'node:fs/promises';
import { runtimeOpenApiDocument } from './runtime-openapi-document.js';

const target = new URL('../openapi/runtime.json', import.meta.url);
await writeFile(target, `${JSON.stringify(await runtimeOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
