import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { createTestRegistry, EXAMPLE_CATALOG, type TestRegistry, expectNoServerErrors } from '../helpers/registry.js';

interface SyncStatus {
  phase: string;
  attemptCount: number;
  message: string;
  serverCount: number;
  skillCount: number;
  pluginCount: number;
  lastAttempt?: string;
  lastSyncTime?: string;
}

interface Source {
  name: string;
  sourceType: string;
  type: string;
  sourceConfig: Record<string, unknown>;
  filterConfig: { names: { include: string[]; exclude: string[] }; tags: { include: string[]; exclude: string[] } };
  claims: Record<string, string | string[]>;
  creationType: string;
  syncSchedule: string;
  syncStatus: SyncStatus;
  createdAt: string;
  updatedAt: string;
}

interface SourceEntries {
  entries: { entryType: string; name: string; claims: Record<string, unknown>; versions: { version: string; title: string; description: string; createdAt: string; updatedAt: string }[] }[];
}

interface ErrorBody {
  error: string;
}

/** A clock the tests move by hand, so timestamps in responses can be compared exactly. */
function manualClock(start = new Date('2026-03-01T10:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

const server = (name: string, version: string, extra: Record<string, unknown> = {}) => ({ name, version, title: `${name} title`, description: `${name} at ${version}`, ...extra });

/** A small catalog in the upstream registry format: 3 server versions, 1 skill, 1 plugin. */
const INLINE_CATALOG = {
  version: '1.0.0',
  meta: { last_updated: '2026-01-01T00:00:00Z' },
  data: {
    servers: [server('io.example/alpha', '1.0.0'), server('io.example/alpha', '1.1.0'), server('io.example/beta', '0.1.0')],
    skills: [{ namespace: 'io.example', name: 'writer', version: '1.0.0', title: 'Writer', description: 'writes' }],
    plugins: [{ namespace: 'io.example', name: 'linter', version: '2.0.0', title: 'Linter', description: 'lints' }],
  },
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;


describe.each(testDatabaseTargets())('admin API: sources ($name)', (target) => {
  let registry: TestRegistry;
  const clock = manualClock();

  beforeAll(async () => {
    registry = await createTestRegistry({
      target,
      clock,
      config: {
        sources: [
          { name: 'examples', file: { path: EXAMPLE_CATALOG }, syncPolicy: { interval: '5m' } },
          // remote sources that fail at once (nothing listens on port 9, no such repository)
          { name: 'upstream', api: { endpoint: 'http://127.0.0.1:9', timeout: '2s' }, syncPolicy: { interval: '10m' } },
          { name: 'team-git', git: { repository: '/nonexistent/toolyard-config-repo', tag: 'v1', path: 'catalog.json' } },
        ],
        registries: [{ name: 'default', sources: ['examples'] }],
      },
    });
    await registry.syncNow();
  });
  afterAll(async () => {
    await expectNoServerErrors(registry);
    await registry.dispose();
  });

  const put = (name: string, body: unknown) => registry.send<Source & ErrorBody>('PUT', `/v1/sources/${name}`, body);
  const source = async (name: string) => {
    const { status, body } = await registry.get<Source>(`/v1/sources/${name}`);
    expect(status).toBe(200);
    return body;
  };

  describe('reads', () => {
    it('lists sources in {sources}, with the config-defined one marked CONFIG', async () => {
      const { status, body } = await registry.get<{ sources: Source[] }>('/v1/sources');
      expect(status).toBe(200);
      const examples = body.sources.find((item) => item.name === 'examples');
      expect(examples).toMatchObject({
        name: 'examples',
        sourceType: 'file',
        type: 'FILE',
        sourceConfig: { path: EXAMPLE_CATALOG },
        filterConfig: { names: { include: [], exclude: [] }, tags: { include: [], exclude: [] } },
        claims: {},
        creationType: 'CONFIG',
        syncSchedule: '5m',
        syncStatus: { phase: 'complete', attemptCount: 0, serverCount: 6, skillCount: 3, pluginCount: 1 },
      });
    });

    it('gets one source, and 404 with {error} for an unknown one', async () => {
      const examples = await source('examples');
      expect(examples.syncStatus.lastSyncTime).toMatch(ISO);
      expect(examples.syncStatus.lastAttempt).toMatch(ISO);
      expect(examples.createdAt).toMatch(ISO);
      const missing = await registry.get<ErrorBody>('/v1/sources/nope');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: expect.stringContaining('nope') as string });
    });

    it('lists the entries of a source, one item per name with its versions', async () => {
      const { status, body } = await registry.get<SourceEntries>('/v1/sources/examples/entries');
      expect(status).toBe(200);
      const memory = body.entries.find((entry) => entry.entryType === 'server' && entry.name === 'dev.toolyard.examples/memory');
      expect(memory).toEqual({
        entryType: 'server',
        name: 'dev.toolyard.examples/memory',
        claims: {},
        versions: ['2025.4.25', '2025.8.4'].map((version) => ({
          version,
          title: 'Memory',
          description: 'A knowledge graph that remembers entities and relations across conversations',
          createdAt: expect.stringMatching(ISO) as string,
          updatedAt: expect.stringMatching(ISO) as string,
        })),
      });
      const counts = { server: 0, skill: 0, plugin: 0 } as Record<string, number>;
      for (const entry of body.entries) counts[entry.entryType] = (counts[entry.entryType] ?? 0) + entry.versions.length;
      expect(counts).toEqual({ server: 6, skill: 3, plugin: 1 });
      expect(body.entries.find((entry) => entry.entryType === 'skill' && entry.name === 'dev.toolyard.examples/release-notes')?.versions).toHaveLength(2);
    });

    it('answers 404 for the entries of an unknown source', async () => {
      const { status, body } = await registry.get<ErrorBody>('/v1/sources/nope/entries');
      expect(status).toBe(404);
      expect(typeof body.error).toBe('string');
    });
  });

  describe('create and update', () => {
    it('creates a synced source (201), syncs it at once, then replaces it (200)', async () => {
      const created = await put('inline', {
        file: { data: INLINE_CATALOG },
        syncPolicy: { interval: '30s' },
        filter: { names: { exclude: ['*/beta'] } },
        claims: { org: 'acme', team: ['a', 'b'] },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'inline',
        sourceType: 'file',
        type: 'FILE',
        sourceConfig: { data: INLINE_CATALOG },
        filterConfig: { names: { include: [], exclude: ['*/beta'] }, tags: { include: [], exclude: [] } },
        claims: { org: 'acme', team: ['a', 'b'] },
        creationType: 'API',
        syncSchedule: '30s',
        createdAt: clock.now().toISOString(),
        updatedAt: clock.now().toISOString(),
      });
      expect(created.body.syncStatus).toMatchObject({ phase: 'syncing', attemptCount: 0, serverCount: 0, skillCount: 0, pluginCount: 0 });
      expect(typeof created.body.syncStatus.message).toBe('string');
      const createdAt = created.body.createdAt;

      await registry.syncNow();
      const synced = await source('inline');
      // the filter drops beta: 2 server versions are left
      expect(synced.syncStatus).toMatchObject({ phase: 'complete', attemptCount: 0, serverCount: 2, skillCount: 1, pluginCount: 1, lastSyncTime: clock.now().toISOString() });
      const entries = await registry.get<SourceEntries>('/v1/sources/inline/entries');
      expect(entries.body.entries.map((entry) => [entry.entryType, entry.name, entry.claims])).toEqual([
        ['plugin', 'io.example/linter', { org: 'acme', team: ['a', 'b'] }],
        ['server', 'io.example/alpha', { org: 'acme', team: ['a', 'b'] }],
        ['skill', 'io.example/writer', { org: 'acme', team: ['a', 'b'] }],
      ]);

      clock.advance(60_000);
      const updated = await put('inline', { file: { data: JSON.stringify(INLINE_CATALOG) }, syncPolicy: { interval: '1h' } });
      expect(updated.status).toBe(200);
      // PUT replaces the whole definition: the filter and claims left out are gone
      expect(updated.body).toMatchObject({
        name: 'inline',
        sourceConfig: { data: JSON.stringify(INLINE_CATALOG) },
        filterConfig: { names: { include: [], exclude: [] }, tags: { include: [], exclude: [] } },
        claims: {},
        syncSchedule: '1h',
        createdAt,
        updatedAt: clock.now().toISOString(),
      });
      await registry.syncNow();
      expect((await source('inline')).syncStatus).toMatchObject({ phase: 'complete', serverCount: 3, skillCount: 1, pluginCount: 1 });
    });

    it('creates git and api sources as REMOTE and records a failed sync without losing the counts', async () => {
      const missing = join(tmpdir(), 'toolyard-nonexistent-repo');
      const git = await put('remote-git', { git: { repository: missing, branch: 'main' } });
      expect(git.status).toBe(201);
      expect(git.body).toMatchObject({ sourceType: 'git', type: 'REMOTE', sourceConfig: { repository: missing, branch: 'main' }, syncSchedule: '1h' });
      const api = await put('remote-api', { api: { endpoint: 'http://127.0.0.1:9/', timeout: '1s' }, syncPolicy: { interval: '10s' } });
      expect(api.status).toBe(201);
      expect(api.body).toMatchObject({ sourceType: 'api', type: 'REMOTE', sourceConfig: { endpoint: 'http://127.0.0.1:9/', timeout: '1s' }, syncSchedule: '10s' });
      await registry.syncNow();
      for (const name of ['remote-git', 'remote-api']) {
        const { syncStatus } = await source(name);
        expect(syncStatus).toMatchObject({ phase: 'failed', attemptCount: 1, serverCount: 0 });
        expect(syncStatus.message).not.toBe('');
        expect(syncStatus.lastSyncTime).toBeUndefined();
      }
      for (const name of ['remote-git', 'remote-api']) expect((await registry.send('DELETE', `/v1/sources/${name}`)).status).toBe(204);
    });

    it('keeps the last good counts and lastSyncTime when a later sync fails', async () => {
      const directory = await mkdtemp(join(tmpdir(), 'toolyard-admin-'));
      const path = join(directory, 'catalog.json');
      try {
        await writeFile(path, JSON.stringify(INLINE_CATALOG));
        expect((await put('flaky', { file: { path } })).status).toBe(201);
        await registry.syncNow();
        const good = (await source('flaky')).syncStatus;
        expect(good).toMatchObject({ phase: 'complete', attemptCount: 0, serverCount: 3, skillCount: 1, pluginCount: 1 });

        await writeFile(path, '{"data": {"servers": [');
        clock.advance(1_000);
        for (const attempt of [1, 2]) {
          expect((await registry.send('POST', '/v1/sources/flaky/sync')).status).toBe(202);
          await registry.syncNow();
          const failed = (await source('flaky')).syncStatus;
          expect(failed).toMatchObject({ phase: 'failed', attemptCount: attempt, serverCount: 3, skillCount: 1, pluginCount: 1, lastSyncTime: good.lastSyncTime });
          expect(failed.message).toMatch(/JSON/);
          expect(failed.lastAttempt).toBe(clock.now().toISOString());
        }
        expect((await registry.get<SourceEntries>('/v1/sources/flaky/entries')).body.entries).toHaveLength(4);
      } finally {
        expect((await registry.send('DELETE', '/v1/sources/flaky')).status).toBe(204);
        await rm(directory, { recursive: true, force: true });
      }
    });

    it.each([
      ['no kind block', {}, /exactly one of git, api, file, managed, kubernetes is required/],
      ['two kind blocks', { managed: {}, file: { path: '/tmp/x.json' } }, /exactly one of .* allowed/],
      ['branch and tag together', { git: { repository: 'https://example.org/r.git', branch: 'main', tag: 'v1' } }, /git\.(branch|tag): branch, tag and commit are mutually exclusive/],
      ['an interval that is not a duration', { file: { path: '/tmp/x.json' }, syncPolicy: { interval: 'often' } }, /syncPolicy\.interval: "often" is not a duration/],
      ['an interval under 10s', { file: { path: '/tmp/x.json' }, syncPolicy: { interval: '5s' } }, /syncPolicy\.interval: must be at least 10s/],
      ['an unknown field', { file: { path: '/tmp/x.json' }, colour: 'red' }, /colour: unknown field/],
      ['an unknown field in a kind block', { file: { path: '/tmp/x.json', branch: 'main' } }, /file\.branch: unknown field/],
      ['file with both path and data', { file: { path: '/tmp/x.json', data: INLINE_CATALOG } }, /file: exactly one of path, url and data/],
      ['file.data that is not a catalog', { file: { data: { hello: 'world' } } }, /file\.data: .*catalog/],
      ['file.data that is not JSON', { file: { data: '{not json' } }, /file\.data.*not valid JSON/],
      ['a claim value that is a number (bodies are never coerced)', { file: { path: '/tmp/x.json' }, claims: { org: 3 } }, /claims/],
      ['an unknown field in a kubernetes block', { kubernetes: { namespace: 'x' } }, /kubernetes\.namespace: unknown field/],
      ['an api endpoint that is not a URL', { api: { endpoint: 'registry.example.org' } }, /api\.endpoint: must be an http or https URL/],
      ['a sync policy on a managed source', { managed: {}, syncPolicy: { interval: '1m' } }, /syncPolicy: managed sources are not synced/],
      ['claims that are neither strings nor string lists', { file: { path: '/tmp/x.json' }, claims: { org: { nested: 'x' } } }, /claims\.org/],
      ['a body that is not an object', [1, 2], /body/],
    ])('rejects %s with 400 naming the field', async (_label, body, message) => {
      const { status, body: response } = await put('invalid', body);
      expect(status).toBe(400);
      expect(Object.keys(response)).toEqual(['error']);
      expect(response.error).toMatch(message);
      expect((await registry.get('/v1/sources/invalid')).status).toBe(404);
    });

    it.each(['Bad_Name', 'UPPER', '-dash', 'a'.repeat(64)])('rejects the source name %s with 400', async (name) => {
      const { status, body } = await put(name, { file: { path: '/tmp/x.json' } });
      expect(status).toBe(400);
      expect(body.error).toMatch(/name: .* is not a valid source name/);
    });

    it('refuses to change the kind of a source (400)', async () => {
      expect((await put('kind-change', { file: { path: EXAMPLE_CATALOG } })).status).toBe(201);
      const { status, body } = await put('kind-change', { git: { repository: 'https://example.org/r.git' } });
      expect(status).toBe(400);
      expect(body.error).toMatch(/kind cannot change/);
      expect((await source('kind-change')).sourceType).toBe('file');
      expect((await registry.send('DELETE', '/v1/sources/kind-change')).status).toBe(204);
    });

    it('creates one managed source (201) and refuses a second (409)', async () => {
      // until a managed source exists, a valid record cannot be published (400, after its validation)
      const orphan = { server: { name: 'io.example/orphan', version: '1.0.0' } };
      const early = await registry.send<ErrorBody>('POST', '/v1/entries', orphan);
      expect(early.status).toBe(400);
      expect(early.body.error).toMatch(/no managed source/);
      const invalid = await registry.send<ErrorBody>('POST', '/v1/entries', { server: { name: 'io.example/orphan', version: 'latest' } });
      expect(invalid.body.error).toMatch(/server\.version/);
      expect((await registry.get('/v1/entries/server/io.example%2Forphan/claims')).status).toBe(404);
      expect((await registry.send('DELETE', '/v1/entries/server/io.example%2Forphan/versions/1.0.0')).status).toBe(404);

      const first = await put('internal', { managed: {}, claims: { org: 'acme' } });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        name: 'internal',
        sourceType: 'managed',
        type: 'MANAGED',
        sourceConfig: {},
        creationType: 'API',
        syncSchedule: '',
        syncStatus: { phase: 'complete', attemptCount: 0, serverCount: 0, skillCount: 0, pluginCount: 0 },
      });
      expect(await registry.send('POST', '/v1/entries', orphan)).toEqual({ status: 201, body: {} });
      expect((await registry.get<SourceEntries>('/v1/sources/internal/entries')).body.entries.map((entry) => entry.name)).toEqual(['io.example/orphan']);
      expect((await source('internal')).syncStatus.serverCount).toBe(1);
      const again = await put('internal', { managed: {} });
      expect(again.status).toBe(200);
      expect(again.body.claims).toEqual({});
      const second = await put('internal-two', { managed: {} });
      expect(second.status).toBe(409);
      expect(second.body.error).toMatch(/managed source already exists/);
      // a managed source cannot become a synced one
      expect((await put('internal', { file: { path: EXAMPLE_CATALOG } })).status).toBe(400);
    });

    it('treats config-defined sources as read-only (403), after validating the body (400)', async () => {
      const update = await put('examples', { file: { path: EXAMPLE_CATALOG } });
      expect(update.status).toBe(403);
      expect(update.body.error).toMatch(/configuration file/);
      expect((await put('examples', { file: {} })).status).toBe(400);
      const removal = await registry.send<ErrorBody>('DELETE', '/v1/sources/examples');
      expect(removal.status).toBe(403);
      expect(typeof removal.body.error).toBe('string');
      expect((await source('examples')).creationType).toBe('CONFIG');
    });
  });

  describe('delete', () => {
    it('deletes a source (204), then answers 404', async () => {
      expect((await put('short-lived', { file: { data: INLINE_CATALOG } })).status).toBe(201);
      await registry.syncNow();
      const removal = await registry.send('DELETE', '/v1/sources/short-lived');
      expect(removal).toEqual({ status: 204, body: undefined });
      expect((await registry.get('/v1/sources/short-lived')).status).toBe(404);
      expect((await registry.get('/v1/sources/short-lived/entries')).status).toBe(404);
      expect((await registry.send('DELETE', '/v1/sources/short-lived')).status).toBe(404);
    });

    it('refuses to delete a source a registry uses (409), and deletes it once the registry lets go', async () => {
      expect((await put('in-use', { file: { data: INLINE_CATALOG } })).status).toBe(201);
      expect((await registry.send('PUT', '/v1/registries/uses-it', { sources: ['in-use'] })).status).toBe(201);
      const refused = await registry.send<ErrorBody>('DELETE', '/v1/sources/in-use');
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatch(/uses-it/);
      expect((await registry.send('PUT', '/v1/registries/uses-it', { sources: [] })).status).toBe(200);
      expect((await registry.send('DELETE', '/v1/sources/in-use')).status).toBe(204);
      expect((await registry.send('DELETE', '/v1/registries/uses-it')).status).toBe(204);
    });
  });

  describe('sync requests', () => {
    it('accepts a sync of a config-defined file source (202) and runs it', async () => {
      const before = await source('examples');
      clock.advance(1_000);
      const { status, body } = await registry.send<{ message: string }>('POST', '/v1/sources/examples/sync');
      expect(status).toBe(202);
      expect(typeof body.message).toBe('string');
      await registry.syncNow();
      const after = await source('examples');
      expect(after.syncStatus.lastAttempt).toBe(clock.now().toISOString());
      expect(after.syncStatus.lastAttempt).not.toBe(before.syncStatus.lastAttempt);
      expect(after.syncStatus).toMatchObject({ phase: 'complete', serverCount: 6 });
      // asking for a sync does not change the resource itself
      expect(after.updatedAt).toBe(before.updatedAt);
    });

    it('accepts a sync of config-defined git and api sources (202)', async () => {
      for (const name of ['upstream', 'team-git']) {
        const before = await source(name);
        expect(before).toMatchObject({ type: 'REMOTE', creationType: 'CONFIG' });
        expect((await registry.send('POST', `/v1/sources/${name}/sync`)).status).toBe(202);
        expect((await source(name)).updatedAt).toBe(before.updatedAt);
      }
      expect((await source('team-git')).sourceConfig).toEqual({ repository: '/nonexistent/toolyard-config-repo', tag: 'v1', path: 'catalog.json' });
      await registry.syncNow();
      expect((await source('upstream')).syncStatus).toMatchObject({ phase: 'failed', serverCount: 0 });
    });

    it('accepts a sync of API-defined file, git and api sources (202)', async () => {
      expect((await put('sync-file', { file: { data: INLINE_CATALOG } })).status).toBe(201);
      expect((await put('sync-git', { git: { repository: 'https://example.invalid/repo.git' } })).status).toBe(201);
      expect((await put('sync-api', { api: { endpoint: 'https://example.invalid' } })).status).toBe(201);
      for (const name of ['sync-file', 'sync-git', 'sync-api']) {
        expect((await registry.send('POST', `/v1/sources/${name}/sync`)).status).toBe(202);
        // removed before any sync runs, so no test waits on an unreachable remote
        expect((await registry.send('DELETE', `/v1/sources/${name}`)).status).toBe(204);
      }
    });

    it('answers 400 for a managed source and 404 for an unknown one', async () => {
      if ((await registry.get('/v1/sources/internal')).status === 404) expect((await put('internal', { managed: {} })).status).toBe(201);
      const managed = await registry.send<ErrorBody>('POST', '/v1/sources/internal/sync');
      expect(managed.status).toBe(400);
      expect(managed.body.error).toMatch(/managed/);
      const unknown = await registry.send<ErrorBody>('POST', '/v1/sources/nope/sync');
      expect(unknown.status).toBe(404);
      expect(typeof unknown.body.error).toBe('string');
    });
  });
});
