import { writeFile } from 'node:fs/promises';
import { platformOpenApiDocument } from './platform-openapi-document.js';

const target = new URL('../openapi/platform.json', import.meta.url);
await writeFile(target, `${JSON.stringify(await platformOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
