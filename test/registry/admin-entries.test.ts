import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { createTestRegistry, INTERNAL_AND_EXAMPLES, type TestRegistry, expectNoServerErrors } from '../helpers/registry.js';

interface Official {
  status: string;
  isLatest: boolean;
  publishedAt: string;
  updatedAt: string;
  statusChangedAt: string;
}

interface ServerRecord {
  server: { name: string; version: string; title?: string; _meta?: Record<string, unknown> };
  _meta: Record<string, Official>;
}

interface PackageRecord {
  namespace: string;
  name: string;
  version: string;
  status: string;
  title?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

interface ErrorBody {
  error: string;
}

function manualClock(start = new Date('2026-05-01T12:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const PUBLISHER = 'io.modelcontextprotocol.registry/publisher-provided';

const server = (name: string, version: string, extra: Record<string, unknown> = {}) => ({ name, version, title: `${name} ${version}`, description: 'published', ...extra });


describe.each(testDatabaseTargets())('admin API: entries ($name)', (target) => {
  let registry: TestRegistry;
  const clock = manualClock();

  beforeAll(async () => {
    registry = await createTestRegistry({
      target,
      clock,
      config: {
        sources: INTERNAL_AND_EXAMPLES,
        registries: [{ name: 'default', sources: ['internal', 'examples'] }],
      },
    });
    await registry.syncNow();
  });
  afterAll(async () => {
    await expectNoServerErrors(registry);
    await registry.dispose();
  });

  const publish = (body: unknown) => registry.send<ErrorBody>('POST', '/v1/entries', body);
  const versions = async (name: string) => {
    const { status, body } = await registry.get<{ servers: ServerRecord[] }>(`/registry/default/v0.1/servers/${encodeURIComponent(name)}/versions`);
    expect(status).toBe(200);
    return body.servers.map((record) => [record.server.version, record._meta[OFFICIAL]?.isLatest]);
  };

  describe('publish', () => {
    it('publishes a server (201 {}), served by the consumer API at once', async () => {
      const publisherMeta = { [PUBLISHER]: { 'io.example': { tags: ['demo'], nested: { keep: [1, 'two', null] } } } };
      const published = await publish({ server: server('io.example/first', '1.0.0', { $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json', _meta: publisherMeta }) });
      expect(published).toEqual({ status: 201, body: {} });
      const { status, body } = await registry.get<ServerRecord>('/registry/default/v0.1/servers/io.example%2Ffirst/versions/1.0.0');
      expect(status).toBe(200);
      expect(body.server).toMatchObject({ name: 'io.example/first', version: '1.0.0', title: 'io.example/first 1.0.0' });
      expect(body.server._meta).toEqual(publisherMeta);
      expect(body._meta[OFFICIAL]).toMatchObject({ status: 'active', isLatest: true, publishedAt: clock.now().toISOString() });
      const list = await registry.get<{ servers: ServerRecord[] }>('/registry/default/v0.1/servers?search=io.example/first');
      expect(list.body.servers.map((record) => record.server.name)).toEqual(['io.example/first']);
      const source = await registry.get<{ syncStatus: { serverCount: number } }>('/v1/sources/internal');
      expect(source.body.syncStatus.serverCount).toBeGreaterThanOrEqual(1);
      const entries = await registry.get<{ entries: { entryType: string; name: string; versions: { version: string; title: string; description: string }[] }[] }>('/v1/sources/internal/entries');
      expect(entries.body.entries.find((entry) => entry.name === 'io.example/first')).toMatchObject({
        entryType: 'server',
        versions: [{ version: '1.0.0', title: 'io.example/first 1.0.0', description: 'published' }],
      });
    });

    it('publishes a skill and a plugin, served by the consumer API at once', async () => {
      const skill = { namespace: 'io.example', name: 'summarize', version: '1.0.0', title: 'Summarize', description: 'summarizes', allowedTools: ['Read'], isLatest: false, id: 'theirs' };
      expect(await publish({ skill, claims: {} })).toEqual({ status: 201, body: {} });
      const gotSkill = await registry.get<PackageRecord>('/registry/default/v0.1/x/dev.toolyard/skills/io.example/summarize');
      expect(gotSkill.status).toBe(200);
      expect(gotSkill.body).toMatchObject({ namespace: 'io.example', name: 'summarize', version: '1.0.0', status: 'active', title: 'Summarize', allowedTools: ['Read'] });
      // fields the registry owns are not taken from the publisher
      expect(gotSkill.body.id).toBeUndefined();

      const plugin = { namespace: 'io.example', name: 'Format_Tool', version: '0.2.0', title: 'Formatter' };
      expect(await publish({ plugin })).toEqual({ status: 201, body: {} });
      const gotPlugin = await registry.get<PackageRecord>('/registry/default/v0.1/x/dev.toolyard/plugins/io.example/Format_Tool/versions/0.2.0');
      expect(gotPlugin.status).toBe(200);
      expect(gotPlugin.body).toMatchObject({ namespace: 'io.example', name: 'Format_Tool', version: '0.2.0', title: 'Formatter' });
      const source = await registry.get<{ syncStatus: { skillCount: number; pluginCount: number } }>('/v1/sources/internal');
      expect(source.body.syncStatus).toMatchObject({ skillCount: 1, pluginCount: 1 });
    });

    it.each([
      ['none of server, skill and plugin', {}, /exactly one of server, skill and plugin/],
      ['only claims', { claims: { org: 'acme' } }, /exactly one of server, skill and plugin/],
      ['a server and a skill', { server: server('io.example/two', '1.0.0'), skill: { namespace: 'io.example', name: 'two', version: '1.0.0' } }, /exactly one of server, skill and plugin/],
      ['an unknown field', { server: server('io.example/two', '1.0.0'), extra: true }, /extra: unknown field/],
      ['a server that is not an object', { server: 'io.example/two' }, /server/],
      ['a server name without a namespace', { server: server('no-namespace', '1.0.0') }, /server\.name:/],
      ['a server name with two slashes', { server: server('io.example/a/b', '1.0.0') }, /server\.name:/],
      ['a server name with a space', { server: server('io.example/has space', '1.0.0') }, /server\.name:/],
      ['a server name over 200 characters', { server: server(`io.example/${'a'.repeat(190)}`, '1.0.0') }, /server\.name:/],
      ['a server without a version', { server: { name: 'io.example/two' } }, /server\.version:/],
      ['an empty version', { server: server('io.example/two', '') }, /server\.version:/],
      ['the version "latest"', { server: server('io.example/two', 'latest') }, /server\.version: "latest" is reserved/],
      ['the range ^1.0.0', { server: server('io.example/two', '^1.0.0') }, /server\.version: "\^1\.0\.0" is a range/],
      ['the range >=1.0.0', { server: server('io.example/two', '>=1.0.0') }, /is a range/],
      ['the range 1.x', { server: server('io.example/two', '1.x') }, /is a range/],
      ['the range ~1.2', { server: server('io.example/two', '~1.2') }, /is a range/],
      ['a skill name with capitals and _', { skill: { namespace: 'io.example', name: 'Bad_Skill', version: '1.0.0' } }, /skill\.name:/],
      ['a skill name over 64 characters', { skill: { namespace: 'io.example', name: 'a'.repeat(65), version: '1.0.0' } }, /skill\.name:/],
      ['a skill without a namespace', { skill: { name: 'ok', version: '1.0.0' } }, /skill\.namespace:/],
      ['claims that are not strings', { server: server('io.example/two', '1.0.0'), claims: { org: { a: 'b' } } }, /claims\.org/],
    ])('rejects %s with 400', async (_label, body, message) => {
      const { status, body: response } = await publish(body);
      expect(status).toBe(400);
      expect(Object.keys(response)).toEqual(['error']);
      expect(response.error).toMatch(message);
    });

    it('accepts publisher _meta up to 256 KiB and rejects it above (400)', async () => {
      const meta = (bytes: number) => ({ [PUBLISHER]: { blob: 'x'.repeat(bytes) } });
      const overhead = Buffer.byteLength(JSON.stringify(meta(0)));
      const over = await publish({ server: server('io.example/big', '1.0.0', { _meta: meta(256 * 1024 - overhead + 1) }) });
      expect(over.status).toBe(400);
      expect(over.body.error).toMatch(/_meta.*256 KiB/);
      expect((await registry.get('/registry/default/v0.1/servers/io.example%2Fbig/versions')).status).toBe(404);
      expect((await publish({ server: server('io.example/big', '1.0.0', { _meta: meta(256 * 1024 - overhead) }) })).status).toBe(201);
    });

    it('answers 409 for a name@version that exists', async () => {
      expect((await publish({ server: server('io.example/twice', '1.0.0') })).status).toBe(201);
      const again = await publish({ server: server('io.example/twice', '1.0.0', { description: 'changed' }) });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/already published/);
      const skill = { namespace: 'io.example', name: 'twice', version: '1.0.0' };
      expect((await publish({ skill })).status).toBe(201);
      expect((await publish({ skill })).status).toBe(409);
    });

    it('requires every later version to carry the claims of the first (409), whatever the key order', async () => {
      expect((await publish({ server: server('io.example/claimed', '1.0.0'), claims: { org: 'acme', team: ['a', 'b'] } })).status).toBe(201);
      const other = await publish({ server: server('io.example/claimed', '1.1.0'), claims: { org: 'acme' } });
      expect(other.status).toBe(409);
      expect(other.body.error).toMatch(/claims/);
      expect((await publish({ server: server('io.example/claimed', '1.1.0') })).status).toBe(409);
      expect((await publish({ server: server('io.example/claimed', '1.1.0'), claims: { team: ['a', 'b'], org: 'acme' } })).status).toBe(201);
      // the versions list is newest first
      expect(await versions('io.example/claimed')).toEqual([
        ['1.1.0', true],
        ['1.0.0', false],
      ]);
    });

    it('keeps the first-version claims rule when two first versions are published at once', async () => {
      for (let round = 0; round < 5; round += 1) {
        const name = `io.example/race-${round}`;
        const results = await Promise.all([
          publish({ server: server(name, '1.0.0'), claims: { org: 'a' } }),
          publish({ server: server(name, '2.0.0'), claims: { org: 'b' } }),
        ]);
        expect(results.map((result) => result.status).sort()).toEqual([201, 409]);
      }
      const same = await Promise.all([publish({ server: server('io.example/race-same', '1.0.0') }), publish({ server: server('io.example/race-same', '1.0.0') })]);
      expect(same.map((result) => result.status).sort()).toEqual([201, 409]);
    });

    it('answers 405 with Allow for GET on /v1/entries', async () => {
      const response = await registry.http.inject({ method: 'GET', url: '/v1/entries' });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(Object.keys(JSON.parse(response.body) as object)).toEqual(['error']);
    });
  });

  describe('delete a version', () => {
    it('deletes a version (204) and re-points latest to the next highest version', async () => {
      for (const version of ['1.2.0', '1.10.0', '1.9.0']) expect((await publish({ server: server('io.example/versioned', version) })).status).toBe(201);
      // semver order, not text order: 1.10.0 is the highest
      expect(await versions('io.example/versioned')).toEqual([
        ['1.10.0', true],
        ['1.9.0', false],
        ['1.2.0', false],
      ]);
      expect(await registry.send('DELETE', '/v1/entries/server/io.example%2Fversioned/versions/1.10.0')).toEqual({ status: 204, body: undefined });
      expect(await versions('io.example/versioned')).toEqual([
        ['1.9.0', true],
        ['1.2.0', false],
      ]);
      const latest = await registry.get<ServerRecord>('/registry/default/v0.1/servers/io.example%2Fversioned/versions/latest');
      expect(latest.body.server.version).toBe('1.9.0');
      expect((await registry.get('/registry/default/v0.1/servers/io.example%2Fversioned/versions/1.10.0')).status).toBe(404);
      const listed = await registry.get<{ servers: ServerRecord[] }>('/registry/default/v0.1/servers?version=latest&search=io.example/versioned');
      expect(listed.body.servers.map((record) => record.server.version)).toEqual(['1.9.0']);
    });

    it('deletes the last version of a name, which then is gone and may be published again with other claims', async () => {
      expect((await publish({ server: server('io.example/once', '1.0.0'), claims: { org: 'a' } })).status).toBe(201);
      expect((await registry.send('DELETE', '/v1/entries/server/io.example%2Fonce/versions/1.0.0')).status).toBe(204);
      expect((await registry.get('/registry/default/v0.1/servers/io.example%2Fonce/versions')).status).toBe(404);
      expect((await registry.get('/v1/entries/server/io.example%2Fonce/claims')).status).toBe(404);
      expect((await publish({ server: server('io.example/once', '2.0.0'), claims: { org: 'b' } })).status).toBe(201);
    });

    it('deletes skill and plugin versions by their encoded names', async () => {
      const skill = { namespace: 'io.example', name: 'short-lived', version: '1.0.0' };
      expect((await publish({ skill })).status).toBe(201);
      expect((await registry.send('DELETE', '/v1/entries/skill/io.example%2Fshort-lived/versions/1.0.0')).status).toBe(204);
      expect((await registry.get('/registry/default/v0.1/x/dev.toolyard/skills/io.example/short-lived')).status).toBe(404);
      const plugin = { namespace: 'io.example', name: 'gone', version: '1.0.0+build.1' };
      expect((await publish({ plugin })).status).toBe(201);
      expect((await registry.send('DELETE', `/v1/entries/plugin/io.example%2Fgone/versions/${encodeURIComponent('1.0.0+build.1')}`)).status).toBe(204);
    });

    it('answers 404 for an unknown name, version or type, and 400 for a type that does not exist', async () => {
      expect((await publish({ server: server('io.example/kept', '1.0.0') })).status).toBe(201);
      for (const url of [
        '/v1/entries/server/io.example%2Fnope/versions/1.0.0',
        '/v1/entries/server/io.example%2Fkept/versions/9.9.9',
        '/v1/entries/skill/io.example%2Fkept/versions/1.0.0',
        // synced entries are not managed through this API
        '/v1/entries/server/dev.toolyard.examples%2Fmemory/versions/2025.8.4',
      ]) {
        const { status, body } = await registry.send<ErrorBody>('DELETE', url);
        expect([url, status]).toEqual([url, 404]);
        expect(typeof body.error).toBe('string');
      }
      const badType = await registry.send<ErrorBody>('DELETE', '/v1/entries/widget/io.example%2Fkept/versions/1.0.0');
      expect(badType.status).toBe(400);
      expect(badType.body.error).toMatch(/type: .*server, skill, plugin/);
      expect(await versions('dev.toolyard.examples/memory')).toHaveLength(2);
    });
  });

  describe('claims of an entry', () => {
    it('reads, replaces (204) and clears the claims of a published entry', async () => {
      expect((await publish({ server: server('io.example/guarded', '1.0.0'), claims: { org: 'acme' } })).status).toBe(201);
      expect((await publish({ server: server('io.example/guarded', '1.1.0'), claims: { org: 'acme' } })).status).toBe(201);
      expect(await registry.get('/v1/entries/server/io.example%2Fguarded/claims')).toMatchObject({ status: 200, body: { claims: { org: 'acme' } } });

      expect(await registry.send('PUT', '/v1/entries/server/io.example%2Fguarded/claims', { claims: { org: 'acme', team: ['x', 'y'] } })).toEqual({ status: 204, body: undefined });
      expect((await registry.get('/v1/entries/server/io.example%2Fguarded/claims')).body).toEqual({ claims: { org: 'acme', team: ['x', 'y'] } });
      // every version carries the new claims, so the next version must too
      expect((await publish({ server: server('io.example/guarded', '1.2.0'), claims: { org: 'acme' } })).status).toBe(409);
      expect((await publish({ server: server('io.example/guarded', '1.2.0'), claims: { team: ['y', 'x'], org: 'acme' } })).status).toBe(201);

      expect((await registry.send('PUT', '/v1/entries/server/io.example%2Fguarded/claims', { claims: {} })).status).toBe(204);
      expect((await registry.get('/v1/entries/server/io.example%2Fguarded/claims')).body).toEqual({ claims: {} });
      const entries = await registry.get<{ entries: { name: string; claims: unknown }[] }>('/v1/sources/internal/entries');
      expect(entries.body.entries.find((entry) => entry.name === 'io.example/guarded')?.claims).toEqual({});
    });

    it('works for skills and plugins by their encoded names', async () => {
      expect((await publish({ skill: { namespace: 'io.example', name: 'claimed-skill', version: '1.0.0' }, claims: { org: 'acme' } })).status).toBe(201);
      expect((await registry.get('/v1/entries/skill/io.example%2Fclaimed-skill/claims')).body).toEqual({ claims: { org: 'acme' } });
      expect((await registry.send('PUT', '/v1/entries/skill/io.example%2Fclaimed-skill/claims', { claims: { org: 'other' } })).status).toBe(204);
      expect((await registry.get('/v1/entries/skill/io.example%2Fclaimed-skill/claims')).body).toEqual({ claims: { org: 'other' } });
      expect((await publish({ plugin: { namespace: 'io.example', name: 'claimed-plugin', version: '1.0.0' } })).status).toBe(201);
      expect((await registry.get('/v1/entries/plugin/io.example%2Fclaimed-plugin/claims')).body).toEqual({ claims: {} });
    });

    it('answers 404 for an unknown or synced entry and 400 for a bad type or body', async () => {
      for (const url of ['/v1/entries/server/io.example%2Fnope/claims', '/v1/entries/server/dev.toolyard.examples%2Fmemory/claims', '/v1/entries/plugin/io.example%2Fguarded/claims']) {
        const read = await registry.get<ErrorBody>(url);
        expect([url, read.status]).toEqual([url, 404]);
        expect(typeof read.body.error).toBe('string');
        expect((await registry.send('PUT', url, { claims: { org: 'a' } })).status).toBe(404);
      }
      for (const type of ['servers', 'widget', 'SERVER']) {
        const read = await registry.get<ErrorBody>(`/v1/entries/${type}/io.example%2Fguarded/claims`);
        expect(read.status).toBe(400);
        expect(read.body.error).toMatch(/type: .*server, skill, plugin/);
        expect((await registry.send('PUT', `/v1/entries/${type}/io.example%2Fguarded/claims`, { claims: {} })).status).toBe(400);
      }
      for (const body of [{}, { claims: { org: 3, team: { a: 1 } } }, { claims: {}, extra: 1 }, { claims: [] }]) {
        const write = await registry.send<ErrorBody>('PUT', '/v1/entries/server/io.example%2Fguarded/claims', body);
        expect([JSON.stringify(body), write.status]).toEqual([JSON.stringify(body), 400]);
        expect(Object.keys(write.body)).toEqual(['error']);
      }
    });
  });

  it('answers GET /v1/me with 401 {error} in anonymous mode', async () => {
    const { status, body } = await registry.get<ErrorBody>('/v1/me');
    expect(status).toBe(401);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(/anonymous/);
  });
});
