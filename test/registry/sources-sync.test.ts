import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFICIAL_META } from '../../src/registry/sources/providers/records.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { createRepository, createTempDir, git, serveGitOverHttp, type GitHttpServer, type TempDir } from '../helpers/git.js';
import { createTestRegistry, MCP_INSIGHTS, UPSTREAM_EXAMPLE, type TestRegistry } from '../helpers/registry.js';

interface ServerRecord {
  server: { name: string; version: string };
  _meta: Record<string, { isLatest?: boolean; status?: string } | undefined>;
}
interface ServerList {
  servers: ServerRecord[];
  metadata: { count: number; nextCursor?: string };
}
interface SourceResource {
  name: string;
  sourceConfig: Record<string, unknown>;
  syncStatus: { phase: string; attemptCount: number; message: string; serverCount: number; skillCount: number; pluginCount: number; lastSyncTime?: string };
}

const INSIGHTS = JSON.parse(readFileSync(MCP_INSIGHTS, 'utf8')) as ServerRecord[];
const INSIGHTS_VERSIONS = 2_794;
const INSIGHTS_NAMES = 1_108;

/** Every record of a consumer listing, following `metadata.nextCursor` page by page. */
async function listAll(registry: TestRegistry, query: string): Promise<{ records: ServerRecord[]; pages: number }> {
  const records: ServerRecord[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const url = `/registry/default/v0.1/servers?limit=100${query}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const { status, body } = await registry.get<ServerList>(url);
    expect(status, url).toBe(200);
    expect(body.metadata.count).toBe(body.servers.length);
    expect(body.servers.length).toBeLessThanOrEqual(100);
    records.push(...body.servers);
    cursor = body.metadata.nextCursor;
    pages += 1;
    expect(pages, 'the listing never ends').toBeLessThan(100);
  } while (cursor !== undefined);
  return { records, pages };
}

const key = (record: ServerRecord) => `${record.server.name}@${record.server.version}`;
const isLatest = (record: ServerRecord) => record._meta[OFFICIAL_META]?.isLatest === true;

async function source(registry: TestRegistry, name: string): Promise<SourceResource> {
  const { status, body } = await registry.get<SourceResource>(`/v1/sources/${name}`);
  expect(status).toBe(200);
  return body;
}

async function requestSync(registry: TestRegistry, name: string): Promise<void> {
  const { status } = await registry.send('POST', `/v1/sources/${name}/sync`);
  expect(status).toBe(202);
  await registry.syncNow();
}

describe.each([
  ['file', (_upstream: FakeUpstream) => ({ file: { path: MCP_INSIGHTS } })],
  ['api', (upstream: FakeUpstream) => ({ api: { endpoint: upstream.url, timeout: '2s' } })],
])('the MCP Registry crawl (2,794 versions of 1,108 servers) through a %s source', (kind, definition) => {
  let upstream: FakeUpstream;
  let registry: TestRegistry;

  beforeAll(async () => {
    upstream = await startFakeUpstream(INSIGHTS);
    registry = await createTestRegistry({
      config: {
        sources: [{ name: 'insights', ...definition(upstream), syncPolicy: { interval: '1h' } }],
        registries: [{ name: 'default', sources: ['insights'] }],
      },
    });
    await registry.syncNow();
  });
  afterAll(async () => {
    await registry.dispose();
    await upstream.close();
  });

  it('reports a complete sync with the number of records', async () => {
    const { syncStatus } = await source(registry, 'insights');
    expect(syncStatus).toMatchObject({ phase: 'complete', attemptCount: 0, message: '', serverCount: INSIGHTS_VERSIONS, skillCount: 0, pluginCount: 0 });
    expect(syncStatus.lastSyncTime).toBeDefined();
  });

  it('serves every version exactly once across the pages', async () => {
    const { records, pages } = await listAll(registry, '');
    expect(records).toHaveLength(INSIGHTS_VERSIONS);
    expect(pages).toBe(Math.ceil(INSIGHTS_VERSIONS / 100));
    const keys = records.map(key);
    expect(new Set(keys).size).toBe(INSIGHTS_VERSIONS);
    expect(new Set(keys)).toEqual(new Set(INSIGHTS.map(key)));
    expect(records.filter(isLatest)).toHaveLength(INSIGHTS_NAMES);
  });

  it('serves one latest record per server with version=latest', async () => {
    const { records } = await listAll(registry, '&version=latest');
    expect(records).toHaveLength(INSIGHTS_NAMES);
    expect(new Set(records.map((record) => record.server.name)).size).toBe(INSIGHTS_NAMES);
    expect(records.every(isLatest)).toBe(true);
    // the upstream marked the same versions as latest
    const upstreamLatest = new Set(INSIGHTS.filter(isLatest).map(key));
    expect(records.filter((record) => !upstreamLatest.has(key(record))).map(key)).toEqual([]);
  });

  if (kind === 'api') {
    it('crawled the upstream in pages of 100', () => {
      expect(upstream.requests).toHaveLength(Math.ceil(INSIGHTS_VERSIONS / 100));
      expect(upstream.requests.every((request) => request.path === '/v0.1/servers' && request.query.limit === '100')).toBe(true);
    });
  }
});

describe('file, api and git sources side by side in one registry server', () => {
  const gitPassword = 'git-token-never-shown';
  const databaseServers = ['io.github.stacklok/adb-mysql-mcp-server', 'io.github.stacklok/genai-toolbox'];
  const apiRecords = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ server: { name: `io.example/server-${index}`, version: '1.0.0' }, _meta: {} }));
  let upstream: FakeUpstream;
  let gitServer: GitHttpServer;
  let temp: TempDir;
  let catalogPath: string;
  let registry: TestRegistry;

  const names = async (registryName: string) => {
    const { status, body } = await registry.get<ServerList>(`/registry/${registryName}/v0.1/servers?limit=100`);
    expect(status).toBe(200);
    return body.servers.map((record) => record.server.name).sort();
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream(apiRecords(30));
    temp = await createTempDir();
    catalogPath = join(temp.path, 'catalog.json');
    await writeFile(catalogPath, JSON.stringify([{ name: 'io.example/from-file', version: '1.0.0' }]));
    const repo = await createRepository(join(temp.path, 'work'));
    await repo.commit({ 'catalogs/registry.json': readFileSync(UPSTREAM_EXAMPLE, 'utf8') });
    await repo.branch('release');
    await git(temp.path, 'clone', '--quiet', '--bare', repo.dir, join(temp.path, 'served', 'catalog.git'));
    gitServer = await serveGitOverHttp({ root: join(temp.path, 'served'), username: 'reader', password: gitPassword });
    const passwordFile = join(temp.path, 'password');
    await writeFile(passwordFile, gitPassword);
    registry = await createTestRegistry({
      config: {
        sources: [
          { name: 'toolhive', file: { path: UPSTREAM_EXAMPLE } },
          { name: 'databases', file: { path: UPSTREAM_EXAMPLE }, filter: { tags: { include: ['database'] } } },
          { name: 'no-browsers', file: { path: UPSTREAM_EXAMPLE }, filter: { tags: { exclude: ['browser', 'aws'] } } },
          { name: 'upstream', api: { endpoint: upstream.url, timeout: '2s' }, syncPolicy: { interval: '1h' } },
          { name: 'local', file: { path: catalogPath }, syncPolicy: { interval: '1h' } },
          {
            name: 'team-git',
            git: {
              repository: `${gitServer.url}/catalog.git`,
              branch: 'release',
              path: 'catalogs/registry.json',
              auth: { username: 'reader', passwordFile },
            },
            syncPolicy: { interval: '1h' },
          },
        ],
        registries: [
          { name: 'default', sources: ['toolhive'] },
          { name: 'databases', sources: ['databases'] },
          { name: 'no-browsers', sources: ['no-browsers'] },
          { name: 'mixed', sources: ['upstream', 'local'] },
          { name: 'team', sources: ['team-git'] },
        ],
      },
    });
    await registry.syncNow();
  });
  afterAll(async () => {
    await registry.dispose();
    await gitServer.close();
    await upstream.close();
    await temp.dispose();
  });

  describe('the upstream registry document through a file source, with tag filters', () => {
    it('serves the 12 servers of the document', async () => {
      const served = await names('default');
      expect(served).toHaveLength(12);
      expect(served).toContain('io.github.stacklok/arxiv-mcp-server');
      expect((await source(registry, 'toolhive')).syncStatus).toMatchObject({ phase: 'complete', serverCount: 12, attemptCount: 0 });
    });

    it('keeps only the servers tagged "database" with an include filter', async () => {
      expect(await names('databases')).toEqual(databaseServers);
      expect((await source(registry, 'databases')).syncStatus).toMatchObject({ phase: 'complete', serverCount: 2 });
    });

    it('drops the servers with an excluded tag', async () => {
      const served = await names('no-browsers');
      expect(served).toHaveLength(9);
      for (const dropped of ['aws-api', 'browserbase', 'chrome-devtools-mcp']) expect(served).not.toContain(`io.github.stacklok/${dropped}`);
      expect(served).toContain('io.github.stacklok/fetch');
    });
  });

  describe('sync status of failing sources', () => {
    it('reports a failed api sync and keeps serving what it synced before', async () => {
      expect((await source(registry, 'upstream')).syncStatus).toMatchObject({ phase: 'complete', serverCount: 30, attemptCount: 0 });
      upstream.failAlways(500);
      await requestSync(registry, 'upstream');
      const { syncStatus } = await source(registry, 'upstream');
      expect(syncStatus.phase).toBe('failed');
      // one sync attempt, however many HTTP retries it made
      expect(syncStatus.attemptCount).toBe(1);
      expect(syncStatus.message).toContain('answered HTTP 500');
      expect(syncStatus.serverCount).toBe(30);
      const served = await names('mixed');
      expect(served).toHaveLength(31);
      expect(served).toContain('io.example/server-29');
    });

    it('recovers on the next sync and takes the upstream change', async () => {
      upstream.failAlways(undefined);
      upstream.setRecords(apiRecords(32));
      await requestSync(registry, 'upstream');
      expect((await source(registry, 'upstream')).syncStatus).toMatchObject({ phase: 'complete', attemptCount: 0, message: '', serverCount: 32 });
      expect(await names('mixed')).toHaveLength(33);
    });

    it('reports a catalog file that became invalid without quoting it, and keeps its content', async () => {
      await writeFile(catalogPath, '{"servers": [ password=hunter2 ]');
      await requestSync(registry, 'local');
      const { syncStatus } = await source(registry, 'local');
      expect(syncStatus).toMatchObject({ phase: 'failed', attemptCount: 1, serverCount: 1 });
      expect(syncStatus.message).toMatch(new RegExp(`^${catalogPath} is not valid JSON`));
      expect(syncStatus.message).not.toContain('hunter2');
      expect(await names('mixed')).toContain('io.example/from-file');
    });

    it('reports the records it skipped in the sync message', async () => {
      await writeFile(catalogPath, JSON.stringify([{ name: 'io.example/from-file', version: '1.0.0' }, { name: 'bad', version: '1' }]));
      await requestSync(registry, 'local');
      const { syncStatus } = await source(registry, 'local');
      expect(syncStatus).toMatchObject({ phase: 'complete', attemptCount: 0, serverCount: 1 });
      expect(syncStatus.message).toMatch(/^skipped 1 record\(s\): servers\[1\]\.name: "bad" must be/);
    });
  });

  describe('a git source over HTTP with basic auth', () => {
    it('syncs the catalog file of the branch and serves it', async () => {
      expect((await source(registry, 'team-git')).syncStatus).toMatchObject({ phase: 'complete', serverCount: 12, attemptCount: 0 });
      expect(await names('team')).toEqual(await names('default'));
    });

    it('never shows the password in the source resource', async () => {
      const { body } = await registry.get<SourceResource>('/v1/sources/team-git');
      expect(body.sourceConfig).toMatchObject({ repository: `${gitServer.url}/catalog.git`, auth: { username: 'reader' } });
      expect(JSON.stringify(body)).not.toContain(gitPassword);
    });
  });
});
