import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runtimeOpenApiDocument } from '../../scripts/runtime-openapi-document.js';

describe('the committed OpenAPI document of the local runtime', () => {
  it('matches the routes (run `npm run openapi` after changing a route or schema)', async () => {
    const committed = JSON.parse(await readFile(new URL('../../openapi/runtime.json', import.meta.url), 'utf8')) as unknown;
    expect(JSON.parse(JSON.stringify(await runtimeOpenApiDocument()))).toEqual(committed);
  });

  it('is OpenAPI 3.1 and documents every workload and group route', async () => {
    const document = (await runtimeOpenApiDocument()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/v1beta/workloads',
        'GET /api/v1beta/workloads/{name}/export',
        'POST /api/v1beta/workloads/{name}/edit',
        'POST /api/v1beta/workloads/delete',
        'DELETE /api/v1beta/workloads/{name}',
        'DELETE /api/v1beta/groups/{name}',
        'GET /api/v1beta/version',
      ]),
    );
  });
});
