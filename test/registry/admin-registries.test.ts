import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { createTestRegistry, INTERNAL_AND_EXAMPLES, type TestRegistry, expectNoServerErrors } from '../helpers/registry.js';

interface Registry {
  name: string;
  sources: string[];
  claims: Record<string, string | string[]>;
  creationType: string;
  createdAt: string;
  updatedAt: string;
}

interface RegistryEntry {
  entryType: string;
  name: string;
  version: string;
  title: string;
  description: string;
  sourceName: string;
  position: number;
  createdAt: string;
  updatedAt: string;
}

interface ServerList {
  servers: { server: { name: string; version: string; description: string }; _meta: Record<string, { isLatest: boolean }> }[];
  metadata: { count: number };
}

interface ErrorBody {
  error: string;
}

function manualClock(start = new Date('2026-04-01T08:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

const server = (name: string, version: string, from: string) => ({ name, version, title: name, description: `${name}@${version} from ${from}` });
const catalog = (servers: unknown[], extra: Record<string, unknown[]> = {}) => ({ version: '1.0.0', meta: {}, data: { servers, ...extra } });

const OFFICIAL = 'io.modelcontextprotocol.registry/official';


describe.each(testDatabaseTargets())('admin API: registries ($name)', (target) => {
  let registry: TestRegistry;
  const clock = manualClock();

  beforeAll(async () => {
    registry = await createTestRegistry({
      target,
      clock,
      config: {
        sources: INTERNAL_AND_EXAMPLES,
        registries: [{ name: 'default', sources: ['internal', 'examples'], claims: { org: 'acme' } }],
      },
    });
    // two API sources that both hold io.example/alpha, for precedence
    for (const [name, data] of [
      ['first', catalog([server('io.example/alpha', '1.0.0', 'first'), server('io.example/alpha', '1.1.0', 'first')], { skills: [{ namespace: 'io.example', name: 'writer', version: '1.0.0', title: 'Writer' }] })],
      ['second', catalog([server('io.example/alpha', '2.0.0', 'second'), server('io.example/beta', '0.1.0', 'second')], { plugins: [{ namespace: 'io.example', name: 'linter', version: '3.0.0' }] })],
    ] as const) {
      expect((await registry.send('PUT', `/v1/sources/${name}`, { file: { data } })).status).toBe(201);
    }
    await registry.syncNow();
  });
  afterAll(async () => {
    await expectNoServerErrors(registry);
    await registry.dispose();
  });

  const put = (name: string, body: unknown) => registry.send<Registry & ErrorBody>('PUT', `/v1/registries/${name}`, body);
  const servers = async (name: string, query = '') => {
    const { status, body } = await registry.get<ServerList>(`/registry/${name}/v0.1/servers${query}`);
    expect(status).toBe(200);
    return body.servers.map((record) => [record.server.name, record.server.version, record._meta[OFFICIAL]?.isLatest]);
  };

  it('lists registries in {registries} and gets one; 404 for an unknown one', async () => {
    const { status, body } = await registry.get<{ registries: Registry[] }>('/v1/registries');
    expect(status).toBe(200);
    expect(body.registries.find((item) => item.name === 'default')).toEqual({
      name: 'default',
      sources: ['internal', 'examples'],
      claims: { org: 'acme' },
      creationType: 'CONFIG',
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    expect((await registry.get<Registry>('/v1/registries/default')).body.sources).toEqual(['internal', 'examples']);
    const missing = await registry.get<ErrorBody>('/v1/registries/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/nope/);
  });

  it('creates a registry (201), replaces it (200) and deletes it (204)', async () => {
    clock.advance(1_000);
    const created = await put('team', { sources: ['first', 'examples'], claims: { team: ['a', 'b'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'team',
      sources: ['first', 'examples'],
      claims: { team: ['a', 'b'] },
      creationType: 'API',
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    expect((await servers('team', '?version=latest')).map(([name]) => name)).toContain('io.example/alpha');

    const createdAt = clock.now().toISOString();
    clock.advance(1_000);
    const updated = await put('team', { sources: ['second'] });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ name: 'team', sources: ['second'], claims: {}, creationType: 'API', createdAt, updatedAt: clock.now().toISOString() });
    expect((await registry.get<{ registries: Registry[] }>('/v1/registries')).body.registries.map((item) => item.name)).toEqual(['default', 'team']);
    expect(await servers('team')).toEqual([
      ['io.example/alpha', '2.0.0', true],
      ['io.example/beta', '0.1.0', true],
    ]);

    expect(await registry.send('DELETE', '/v1/registries/team')).toEqual({ status: 204, body: undefined });
    expect((await registry.get('/v1/registries/team')).status).toBe(404);
    expect((await registry.get('/registry/team/v0.1/servers')).status).toBe(404);
    expect((await registry.send('DELETE', '/v1/registries/team')).status).toBe(404);
  });

  it('creates an empty registry from an empty body', async () => {
    const created = await put('empty', {});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ sources: [], claims: {} });
    expect(await servers('empty')).toEqual([]);
    expect((await registry.send('DELETE', '/v1/registries/empty')).status).toBe(204);
  });

  it.each([
    ['an unknown source', { sources: ['first', 'ghost'] }, /sources: no source named "ghost"/],
    ['a source listed twice', { sources: ['first', 'second', 'first'] }, /sources: "first" listed more than once/],
    ['an unknown field', { sources: [], owner: 'me' }, /owner: unknown field/],
    ['claims that are not strings', { sources: [], claims: { org: { a: 'b' } } }, /claims\.org/],
    ['a body that is not an object', ['first'], /body: must be object/],
  ])('rejects %s with 400', async (_label, body, message) => {
    const { status, body: response } = await put('broken', body);
    expect(status).toBe(400);
    expect(Object.keys(response)).toEqual(['error']);
    expect(response.error).toMatch(message);
    expect((await registry.get('/v1/registries/broken')).status).toBe(404);
  });

  it('rejects a registry name that is not a DNS label with 400', async () => {
    const { status, body } = await put('Bad_Name', { sources: [] });
    expect(status).toBe(400);
    expect(body.error).toMatch(/name: "Bad_Name" is not a valid registry name/);
  });

  it('treats config-defined registries as read-only (403)', async () => {
    const update = await put('default', { sources: ['examples'] });
    expect(update.status).toBe(403);
    expect(update.body.error).toMatch(/configuration file/);
    const removal = await registry.send<ErrorBody>('DELETE', '/v1/registries/default');
    expect(removal.status).toBe(403);
    expect(typeof removal.body.error).toBe('string');
    expect((await registry.get<Registry>('/v1/registries/default')).body.sources).toEqual(['internal', 'examples']);
  });

  it('lists every entry of every source, shadowed ones included, one row per version', async () => {
    expect((await put('mix', { sources: ['first', 'second'] })).status).toBe(201);
    const { status, body } = await registry.get<{ entries: RegistryEntry[] }>('/v1/registries/mix/entries');
    expect(status).toBe(200);
    const rows = body.entries.map((entry) => [entry.entryType, entry.name, entry.version, entry.sourceName, entry.position]);
    expect(rows).toHaveLength(6);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['server', 'io.example/alpha', '1.0.0', 'first', 0],
        ['server', 'io.example/alpha', '1.1.0', 'first', 0],
        ['skill', 'io.example/writer', '1.0.0', 'first', 0],
        // shadowed by first's alpha, still listed
        ['server', 'io.example/alpha', '2.0.0', 'second', 1],
        ['server', 'io.example/beta', '0.1.0', 'second', 1],
        ['plugin', 'io.example/linter', '3.0.0', 'second', 1],
      ]),
    );
    const shadowed = body.entries.find((entry) => entry.version === '2.0.0');
    expect(shadowed).toEqual({
      entryType: 'server',
      name: 'io.example/alpha',
      version: '2.0.0',
      title: 'io.example/alpha',
      description: 'io.example/alpha@2.0.0 from second',
      sourceName: 'second',
      position: 1,
      createdAt: expect.any(String) as string,
      updatedAt: expect.any(String) as string,
    });
    expect(body.entries.find((entry) => entry.entryType === 'plugin')).toMatchObject({ title: '', description: '' });
  });

  it('answers 404 for the entries of an unknown registry', async () => {
    const { status, body } = await registry.get<ErrorBody>('/v1/registries/nope/entries');
    expect(status).toBe(404);
    expect(typeof body.error).toBe('string');
  });

  it('applies precedence in the consumer API, and follows a reordering at once', async () => {
    if ((await registry.get('/v1/registries/mix')).status === 404) expect((await put('mix', { sources: ['first', 'second'] })).status).toBe(201);
    // first owns alpha: only its versions, none of second's
    expect(await servers('mix')).toEqual([
      ['io.example/alpha', '1.0.0', false],
      ['io.example/alpha', '1.1.0', true],
      ['io.example/beta', '0.1.0', true],
    ]);
    const reordered = await put('mix', { sources: ['second', 'first'] });
    expect(reordered.status).toBe(200);
    expect(reordered.body.sources).toEqual(['second', 'first']);
    expect(await servers('mix')).toEqual([
      ['io.example/alpha', '2.0.0', true],
      ['io.example/beta', '0.1.0', true],
    ]);
    const latest = await registry.get<{ server: { description: string } }>('/registry/mix/v0.1/servers/io.example%2Falpha/versions/latest');
    expect(latest.body.server.description).toBe('io.example/alpha@2.0.0 from second');
    expect((await registry.get('/registry/mix/v0.1/servers/io.example%2Falpha/versions/1.1.0')).status).toBe(404);
    const entries = await registry.get<{ entries: RegistryEntry[] }>('/v1/registries/mix/entries');
    expect(entries.body.entries.find((entry) => entry.version === '2.0.0')?.position).toBe(0);
    expect(entries.body.entries.find((entry) => entry.version === '1.1.0')?.position).toBe(1);
  });
});
