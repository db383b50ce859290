import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/core/db/database.js';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRegistryApp, VERSION } from '../../src/registry/app.js';
import type { RegistryDatabase } from '../../src/registry/tables.js';
import { REGISTRY_MIGRATION_TABLE } from '../../src/registry/migrations/index.js';
import { createTestRegistry, EXAMPLE_CATALOG, INTERNAL_AND_EXAMPLES, registryConfig, type TestRegistry } from '../helpers/registry.js';

const TEN_MIB = 10 * 1024 * 1024;

/** Every failure of the registry server answers `{error: string}` and nothing else. */
function expectError(response: LightMyRequestResponse, status: number): string {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error).toBe('string');
  return body.error as string;
}

describe.each(testDatabaseTargets())('public endpoints and HTTP edges ($name)', (target) => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await createTestRegistry({
      target,
      config: {
        sources: INTERNAL_AND_EXAMPLES,
        registries: [{ name: 'default', sources: ['internal', 'examples'] }],
      },
    });
    await registry.syncNow();
  });
  afterAll(async () => {
    // no request in this suite may have ended in a 5xx, but for the 503 that readiness is asked for
    const metrics = await registry.http.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('toolyard_http_requests_total{method="GET",route="/readiness",status="503"} 1');
    expect(metrics.body).not.toMatch(/toolyard_http_requests_total\{[^}]*route="(?!\/readiness")[^"]*",status="5\d\d"/);
    await registry.dispose();
  });

  const inject = (method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'OPTIONS', url: string, options: { payload?: string | object; headers?: Record<string, string> } = {}) =>
    registry.http.inject({ method, url, ...options });

  it('answers /health, /readiness and /version', async () => {
    expect(await registry.get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await registry.get('/readiness')).toMatchObject({ status: 200, body: { status: 'ready' } });
    const version = await registry.get<{ version: string; apiVersion: string }>('/version');
    expect(version.status).toBe(200);
    expect(version.body).toEqual({ version: VERSION, apiVersion: 'v0.1' });
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('answers /readiness with 503 {error} while migrations are pending, and 200 once they are applied', async () => {
    const { db } = registry.database;
    const applied = await sql<{ name: string; timestamp: string }>`select name, timestamp from ${sql.table(REGISTRY_MIGRATION_TABLE)}`.execute(db);
    expect(applied.rows.length).toBeGreaterThan(0);
    await sql`delete from ${sql.table(REGISTRY_MIGRATION_TABLE)}`.execute(db);
    try {
      expect(expectError(await inject('GET', '/readiness'), 503)).toMatch(/^not ready: /);
    } finally {
      for (const row of applied.rows) await sql`insert into ${sql.table(REGISTRY_MIGRATION_TABLE)} (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(db);
    }
    expect((await inject('GET', '/readiness')).statusCode).toBe(200);
  });

  it('serves an OpenAPI 3.1 document with the consumer, admin and public paths', async () => {
    const { status, body } = await registry.get<{ openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, unknown>> }>('/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe(VERSION);
    const operations = Object.entries(body.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        'GET /health',
        'GET /readiness',
        'GET /version',
        'GET /registry/{registryName}/v0.1/servers',
        'GET /registry/{registryName}/v0.1/servers/{serverName}/versions',
        'GET /registry/{registryName}/v0.1/servers/{serverName}/versions/{version}',
        'GET /registry/{registryName}/v0.1/x/dev.toolyard/skills',
        'GET /registry/{registryName}/v0.1/x/dev.toolyard/skills/{namespace}/{name}',
        'GET /registry/{registryName}/v0.1/x/dev.toolyard/plugins/{namespace}/{name}/versions/{version}',
        'GET /v1/sources',
        'GET /v1/sources/{name}',
        'PUT /v1/sources/{name}',
        'DELETE /v1/sources/{name}',
        'GET /v1/sources/{name}/entries',
        'POST /v1/sources/{name}/sync',
        'GET /v1/registries',
        'GET /v1/registries/{name}',
        'PUT /v1/registries/{name}',
        'DELETE /v1/registries/{name}',
        'GET /v1/registries/{name}/entries',
        'POST /v1/entries',
        'DELETE /v1/entries/{type}/{name}/versions/{version}',
        'GET /v1/entries/{type}/{name}/claims',
        'PUT /v1/entries/{type}/{name}/claims',
        'GET /v1/me',
      ]),
    );
    const putSource = body.paths['/v1/sources/{name}']?.put as { requestBody?: unknown; responses: Record<string, unknown> };
    expect(putSource.requestBody).toBeDefined();
    expect(Object.keys(putSource.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '403', '409']));
  });

  it('serves Prometheus metrics with request counts and sync durations', async () => {
    expect((await registry.get('/v1/sources')).status).toBe(200);
    expect((await registry.send('POST', '/v1/sources/examples/sync')).status).toBe(202);
    await registry.syncNow();
    const response = await inject('GET', '/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toContain('# TYPE toolyard_http_requests_total counter');
    expect(response.body).toMatch(/toolyard_http_requests_total\{method="GET",route="\/v1\/sources",status="200"\} [1-9]/);
    expect(response.body).toMatch(/toolyard_http_requests_total\{method="POST",route="\/v1\/sources\/:name\/sync",status="202"\} 1/);
    expect(response.body).toContain('# TYPE toolyard_source_sync_duration_seconds histogram');
    expect(response.body).toMatch(/toolyard_source_sync_duration_seconds_count\{source="examples",outcome="changed"\} 1/);
    expect(response.body).toMatch(/toolyard_source_sync_duration_seconds_count\{source="examples",outcome="unchanged"\} 1/);
    expect(response.body).toMatch(/toolyard_source_entries\{source="examples",entry_type="server"\} 6/);
  });

  it.each([
    ['PATCH', '/v1/sources', 'GET, HEAD'],
    ['POST', '/v1/sources/examples', 'GET, PUT, DELETE, HEAD'],
    ['DELETE', '/v1/sources/examples/entries', 'GET, HEAD'],
    ['GET', '/v1/sources/examples/sync', 'POST'],
    ['POST', '/v1/registries', 'GET, HEAD'],
    ['PATCH', '/v1/registries/default', 'GET, PUT, DELETE, HEAD'],
    ['GET', '/v1/entries', 'POST'],
    ['GET', '/v1/entries/server/io.example%2Fa/versions/1.0.0', 'DELETE'],
    ['DELETE', '/v1/entries/server/io.example%2Fa/claims', 'GET, PUT, HEAD'],
    ['POST', '/v1/me', 'GET, HEAD'],
    ['DELETE', '/registry/default/v0.1/servers', 'GET, HEAD'],
    ['PUT', '/registry/default/v0.1/servers/io.example%2Fa/versions/latest', 'GET, HEAD'],
    ['POST', '/registry/default/v0.1/x/dev.toolyard/skills', 'GET, HEAD'],
    ['POST', '/health', 'GET, HEAD'],
    ['OPTIONS', '/v1/sources', 'GET, HEAD'],
  ] as const)('answers %s %s with 405, Allow and {error}', async (method, url, allow) => {
    const response = await inject(method, url, method === 'GET' || method === 'OPTIONS' ? {} : { payload: {} });
    expect(expectError(response, 405)).toMatch(new RegExp(`${method} is not allowed`));
    expect(response.headers.allow).toBe(allow);
  });

  it('answers an unknown path with 404 {error}', async () => {
    expectError(await inject('GET', '/v2/sources'), 404);
    expectError(await inject('POST', '/nowhere', { payload: {} }), 404);
  });

  it('answers a body over 10 MiB with 413 {error}, and reads one just under', async () => {
    const big = JSON.stringify({ server: { name: 'io.example/big', version: '1.0.0', description: 'x'.repeat(TEN_MIB) } });
    expect(Buffer.byteLength(big)).toBeGreaterThan(TEN_MIB);
    expectError(await inject('POST', '/v1/entries', { payload: big, headers: { 'content-type': 'application/json' } }), 413);
    expectError(await inject('PUT', '/v1/sources/big', { payload: JSON.stringify({ file: { data: 'x'.repeat(TEN_MIB) } }), headers: { 'content-type': 'application/json' } }), 413);
    expect((await registry.get('/v1/sources/big')).status).toBe(404);
    // a body just under the limit is read and validated (400 for the name), not refused for its size
    const under = JSON.stringify({ file: { data: 'x'.repeat(TEN_MIB - 100) } });
    expect(Buffer.byteLength(under)).toBeLessThan(TEN_MIB);
    expect(expectError(await inject('PUT', '/v1/sources/Bad_Name', { payload: under, headers: { 'content-type': 'application/json' } }), 400)).toMatch(/name/);
  });

  it('answers a malformed JSON body with 400 {error}', async () => {
    for (const [method, url] of [
      ['POST', '/v1/entries'],
      ['PUT', '/v1/sources/broken'],
      ['PUT', '/v1/registries/broken'],
      ['PUT', '/v1/entries/server/io.example%2Fa/claims'],
    ] as const) {
      expect(expectError(await inject(method, url, { payload: '{"server": {', headers: { 'content-type': 'application/json' } }), 400)).toMatch(/JSON/);
    }
    expect((await registry.get('/v1/sources/broken')).status).toBe(404);
  });

  it('answers malformed consumer queries with 400 {error}, never a 500', async () => {
    for (const url of [
      '/registry/default/v0.1/servers?limit=0',
      '/registry/default/v0.1/servers?limit=101',
      '/registry/default/v0.1/servers?limit=ten',
      '/registry/default/v0.1/servers?cursor=not-a-cursor',
      '/registry/default/v0.1/servers?updated_since=yesterday',
      '/registry/default/v0.1/x/dev.toolyard/skills?limit=1000',
    ]) {
      expectError(await inject('GET', url), 400);
    }
    expectError(await inject('GET', '/registry/nope/v0.1/servers'), 404);
  });

  it('answers every admin failure with exactly {error}', async () => {
    const failures: [LightMyRequestResponse, number][] = [
      [await inject('GET', '/v1/sources/nope'), 404],
      [await inject('PUT', '/v1/sources/examples', { payload: { file: { path: EXAMPLE_CATALOG } } }), 403],
      [await inject('PUT', '/v1/sources/Bad_Name', { payload: { managed: {} } }), 400],
      [await inject('PUT', '/v1/sources/second', { payload: { managed: {} } }), 409],
      [await inject('PUT', '/v1/sources/nobody', { payload: 'plain text', headers: { 'content-type': 'text/plain' } }), 400],
      [await inject('DELETE', '/v1/registries/default'), 403],
      [await inject('PUT', '/v1/registries/x', { payload: { sources: ['ghost'] } }), 400],
      [await inject('POST', '/v1/entries', { payload: {} }), 400],
      [await inject('GET', '/v1/entries/widget/a%2Fb/claims'), 400],
      [await inject('GET', '/v1/me'), 401],
    ];
    for (const [response, status] of failures) expectError(response, status);
  });

  it('answers an unsupported content type with 415 {error}', async () => {
    expectError(await inject('POST', '/v1/entries', { payload: '<server/>', headers: { 'content-type': 'application/xml' } }), 415);
  });
});

describe('readiness of an unreachable database', () => {
  it('answers 503 {error} without the driver message', async () => {
    const database = await createDatabase<RegistryDatabase>({ dataDir: 'memory://' });
    const app = await buildRegistryApp({ config: registryConfig({ database: { dataDir: 'memory://' } }), database, logger: silentLogger, backgroundSync: false });
    try {
      await database.close();
      const error = expectError(await app.http.inject({ method: 'GET', url: '/readiness' }), 503);
      expect(error).toBe('not ready: the database is not reachable');
      expect((await app.http.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
