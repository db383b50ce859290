import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { platformOpenApiDocument } from '../../scripts/platform-openapi-document.js';

describe("the platform's committed OpenAPI document", () => {
  it('matches the routes (run `npm run openapi` after changing a route or schema)', async () => {
    const committed = JSON.parse(await readFile(new URL('../../openapi/platform.json', import.meta.url), 'utf8')) as unknown;
    expect(JSON.parse(JSON.stringify(await platformOpenApiDocument()))).toEqual(committed);
  });
});
