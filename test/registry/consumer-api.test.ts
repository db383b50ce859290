import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { catalogFile, createTestRegistry, EXAMPLE_CATALOG, type TestRegistry } from '../helpers/registry.js';

const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const PUBLISHER = 'io.modelcontextprotocol.registry/publisher-provided';

interface ServerRecord {
  server: { name: string; version: string; description?: string; _meta?: Record<string, unknown> };
  _meta: Record<string, { isLatest: boolean; status: string; publishedAt: string; updatedAt: string; statusChangedAt: string }>;
}
interface ServerList {
  servers: ServerRecord[];
  metadata: { count: number; nextCursor?: string };
}
interface PackageRecord {
  namespace: string;
  name: string;
  version: string;
  status: string;
  description: string;
  _meta: Record<string, { isLatest: boolean }>;
}

const server = (name: string, version: string, extra: Record<string, unknown> = {}) => ({ name, version, description: `The ${name} server`, ...extra });
const official = (record: ServerRecord) => record._meta[OFFICIAL];
const names = (list: ServerList) => list.servers.map((record) => `${record.server.name}@${record.server.version}`);

const primary = {
  version: '1',
  meta: {},
  data: {
    servers: [
      server('com.acme/shared', '1.0.0'),
      server('com.acme/shared', '1.1.0'),
      server('com.acme/alpha', '0.9.0'),
      server('com.acme/alpha', '0.10.0'),
      server('com.acme/alpha', 'nightly'),
      server('com.acme/Upper-Case', '2.0.0'),
      // publisher metadata with an unusual key order must reach consumers exactly as published
      server('com.acme/meta', '1.0.0', { _meta: { [PUBLISHER]: { zeta: 1, alpha: { tags: ['x'] }, mid: [3, 2, 1] } } }),
    ],
    skills: [
      { namespace: 'com.acme', name: 'pdf-tools', version: '1.0.0', description: 'Reads PDF files', status: 'active' },
      { namespace: 'com.acme', name: 'pdf-tools', version: '1.2.0', description: 'Reads and fills PDF forms', status: 'active' },
      { namespace: 'com.acme', name: 'old-skill', version: '0.1.0', description: 'Superseded', status: 'deprecated' },
      { namespace: 'org.other', name: 'archiver', version: '3.0.0', description: 'Makes zip archives', status: 'archived' },
    ],
    plugins: [
      { namespace: 'com.acme', name: 'review', version: '1.0.0', description: 'Code review commands' },
      { namespace: 'com.acme', name: 'review', version: '2.0.0', description: 'Code review commands and agents' },
    ],
  },
};

const secondary = {
  version: '1',
  meta: {},
  data: {
    servers: [server('com.acme/shared', '9.9.9'), server('org.other/beta', '1.0.0'), server('org.other/gamma', '1.0.0')],
  },
};

describe.each(testDatabaseTargets())('consumer API on $name', (target) => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await createTestRegistry({
      target,
      config: {
        sources: [
          { name: 'internal', managed: {} },
          { name: 'primary', file: { path: await catalogFile(primary) } },
          { name: 'secondary', file: { path: await catalogFile(secondary) } },
          { name: 'examples', file: { path: EXAMPLE_CATALOG } },
        ],
        registries: [
          { name: 'default', sources: ['internal', 'primary', 'secondary'] },
          { name: 'reversed', sources: ['secondary', 'primary'] },
          { name: 'examples', sources: ['examples'] },
        ],
      },
    });
    await registry.syncNow();
  });
  afterAll(() => registry.dispose());

  async function allPages(url: string, limit: number): Promise<ServerList['servers']> {
    const records: ServerList['servers'] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const separator = url.includes('?') ? '&' : '?';
      const response = await registry.get<ServerList>(`${url}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status).toBe(200);
      expect(response.body.metadata.count).toBe(response.body.servers.length);
      records.push(...response.body.servers);
      cursor = response.body.metadata.nextCursor;
      if (!cursor) return records;
    }
    throw new Error('pagination did not end');
  }

  it('lists one record per version, ordered by name, with the registry metadata', async () => {
    const { status, body, headers } = await registry.get<ServerList>('/registry/default/v0.1/servers');
    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(names(body)).toEqual([
      'com.acme/Upper-Case@2.0.0',
      'com.acme/alpha@0.10.0',
      'com.acme/alpha@0.9.0',
      'com.acme/alpha@nightly',
      'com.acme/meta@1.0.0',
      'com.acme/shared@1.0.0',
      'com.acme/shared@1.1.0',
      'org.other/beta@1.0.0',
      'org.other/gamma@1.0.0',
    ]);
    expect(body.metadata).toEqual({ count: 9 });
    const meta = official(body.servers[0] as ServerRecord);
    expect(meta).toMatchObject({ status: 'active', isLatest: true });
    expect(new Date(meta?.publishedAt ?? '').toISOString()).toBe(meta?.publishedAt);
    expect(meta?.statusChangedAt).toBe(meta?.publishedAt);
  });

  it('marks the highest semver as latest, above non-semver versions', async () => {
    const { body } = await registry.get<ServerList>('/registry/default/v0.1/servers/com.acme%2Falpha/versions');
    expect(body.servers.map((record) => [record.server.version, official(record)?.isLatest])).toEqual([
      ['0.10.0', true],
      ['0.9.0', false],
      ['nightly', false],
    ]);
  });

  it('lets the first source of the registry own a name, never mixing versions', async () => {
    const first = await registry.get<ServerList>('/registry/default/v0.1/servers/com.acme%2Fshared/versions');
    expect(first.body.servers.map((record) => record.server.version)).toEqual(['1.1.0', '1.0.0']);
    const reversed = await registry.get<ServerList>('/registry/reversed/v0.1/servers/com.acme%2Fshared/versions');
    expect(reversed.body.servers.map((record) => record.server.version)).toEqual(['9.9.9']);
    expect(official(reversed.body.servers[0] as ServerRecord)?.isLatest).toBe(true);
  });

  it('passes publisher metadata through untouched', async () => {
    const response = await registry.http.inject({ method: 'GET', url: '/registry/default/v0.1/servers/com.acme%2Fmeta/versions/1.0.0' });
    expect(response.body).toContain(`"_meta":{"${PUBLISHER}":{"zeta":1,"alpha":{"tags":["x"]},"mid":[3,2,1]}}`);
  });

  it('pages through every record exactly once with keyset cursors', async () => {
    const paged = await allPages('/registry/default/v0.1/servers', 2);
    const whole = await registry.get<ServerList>('/registry/default/v0.1/servers?limit=100');
    expect(names({ servers: paged, metadata: { count: 0 } })).toEqual(names(whole.body));
  });

  it('keeps pages stable while entries are published and deleted between requests', async () => {
    const first = await registry.get<ServerList>('/registry/default/v0.1/servers?limit=3');
    expect(names(first.body)).toEqual(['com.acme/Upper-Case@2.0.0', 'com.acme/alpha@0.10.0', 'com.acme/alpha@0.9.0']);
    // one record lands before the cursor, one after it; neither may shift what the next page shows
    expect((await registry.send('POST', '/v1/entries', { server: server('com.acme/aaa-new', '1.0.0') })).status).toBe(201);
    expect((await registry.send('POST', '/v1/entries', { server: server('org.other/zzz-new', '1.0.0') })).status).toBe(201);
    const next = await registry.get<ServerList>(`/registry/default/v0.1/servers?limit=3&cursor=${encodeURIComponent(first.body.metadata.nextCursor ?? '')}`);
    expect(names(next.body)).toEqual(['com.acme/alpha@nightly', 'com.acme/meta@1.0.0', 'com.acme/shared@1.0.0']);
    for (const name of ['com.acme%2Faaa-new', 'org.other%2Fzzz-new']) {
      expect((await registry.send('DELETE', `/v1/entries/server/${name}/versions/1.0.0`)).status).toBe(204);
    }
  });

  it('filters by version, search and update time', async () => {
    const latest = await registry.get<ServerList>('/registry/default/v0.1/servers?version=latest');
    expect(names(latest.body)).toEqual([
      'com.acme/Upper-Case@2.0.0',
      'com.acme/alpha@0.10.0',
      'com.acme/meta@1.0.0',
      'com.acme/shared@1.1.0',
      'org.other/beta@1.0.0',
      'org.other/gamma@1.0.0',
    ]);
    const exact = await registry.get<ServerList>('/registry/default/v0.1/servers?version=1.0.0');
    expect(names(exact.body)).toEqual(['com.acme/meta@1.0.0', 'com.acme/shared@1.0.0', 'org.other/beta@1.0.0', 'org.other/gamma@1.0.0']);
    const search = await registry.get<ServerList>('/registry/default/v0.1/servers?search=UPPER&version=latest');
    expect(names(search.body)).toEqual(['com.acme/Upper-Case@2.0.0']);
    const future = await registry.get<ServerList>('/registry/default/v0.1/servers?updated_since=2999-01-01T00:00:00Z');
    expect(future.body).toEqual({ servers: [], metadata: { count: 0 } });
    const past = await registry.get<ServerList>('/registry/default/v0.1/servers?updated_since=2000-01-01T00:00:00%2B02:00');
    expect(past.body.metadata.count).toBe(9);
  });

  it('answers 400 with a message for malformed parameters, never 500', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=not-a-cursor', 'cursor=WyJhIl0', 'updated_since=yesterday', 'updated_since=2025-13-45T00:00:00Z']) {
      const response = await registry.get<{ error: string }>(`/registry/default/v0.1/servers?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.length, query).toBeGreaterThan(5);
    }
  });

  it('answers 404 for unknown registries, servers and versions', async () => {
    for (const url of [
      '/registry/nope/v0.1/servers',
      '/registry/default/v0.1/servers/com.acme%2Fnope/versions',
      '/registry/default/v0.1/servers/com.acme%2Fnope/versions/latest',
      '/registry/default/v0.1/servers/com.acme%2Falpha/versions/7.7.7',
      '/registry/default/v0.1/x/dev.toolyard/skills/com.acme/nope',
    ]) {
      const response = await registry.get<{ error: string }>(url);
      expect(response.status, url).toBe(404);
      expect(typeof response.body.error).toBe('string');
    }
  });

  it('serves a server version by exact version and by latest', async () => {
    const exact = await registry.get<ServerRecord>('/registry/default/v0.1/servers/com.acme%2Falpha/versions/0.9.0');
    expect(exact.body.server.version).toBe('0.9.0');
    expect(official(exact.body)?.isLatest).toBe(false);
    const latest = await registry.get<ServerRecord>('/registry/default/v0.1/servers/com.acme%2Falpha/versions/latest');
    expect(latest.body.server.version).toBe('0.10.0');
  });

  it('lists skills one per name at its latest version, with search and status filters', async () => {
    const all = await registry.get<{ skills: PackageRecord[]; metadata: { count: number } }>('/registry/default/v0.1/x/dev.toolyard/skills');
    expect(all.body.skills.map((skill) => `${skill.namespace}/${skill.name}@${skill.version}:${skill.status}`)).toEqual([
      'com.acme/old-skill@0.1.0:deprecated',
      'com.acme/pdf-tools@1.2.0:active',
      'org.other/archiver@3.0.0:archived',
    ]);
    const search = await registry.get<{ skills: PackageRecord[] }>('/registry/default/v0.1/x/dev.toolyard/skills?search=FORMS');
    expect(search.body.skills.map((skill) => skill.name)).toEqual(['pdf-tools']);
    const statuses = await registry.get<{ skills: PackageRecord[] }>('/registry/default/v0.1/x/dev.toolyard/skills?status=active,archived');
    expect(statuses.body.skills.map((skill) => skill.name)).toEqual(['pdf-tools', 'archiver']);
    expect((await registry.get('/registry/default/v0.1/x/dev.toolyard/skills?status=gone')).status).toBe(400);
    const paged = await registry.get<{ skills: PackageRecord[]; metadata: { nextCursor?: string } }>('/registry/default/v0.1/x/dev.toolyard/skills?limit=2');
    expect(paged.body.skills).toHaveLength(2);
    const rest = await registry.get<{ skills: PackageRecord[]; metadata: { nextCursor?: string } }>(
      `/registry/default/v0.1/x/dev.toolyard/skills?limit=2&cursor=${encodeURIComponent(paged.body.metadata.nextCursor ?? '')}`,
    );
    expect(rest.body.skills.map((skill) => skill.name)).toEqual(['archiver']);
    expect(rest.body.metadata.nextCursor).toBeUndefined();
  });

  it('serves skill versions and the latest skill', async () => {
    const latest = await registry.get<PackageRecord>('/registry/default/v0.1/x/dev.toolyard/skills/com.acme/pdf-tools');
    expect(latest.body).toMatchObject({ namespace: 'com.acme', name: 'pdf-tools', version: '1.2.0', status: 'active' });
    expect(latest.body._meta[OFFICIAL]?.isLatest).toBe(true);
    const versions = await registry.get<{ skills: PackageRecord[] }>('/registry/default/v0.1/x/dev.toolyard/skills/com.acme/pdf-tools/versions');
    expect(versions.body.skills.map((skill) => skill.version)).toEqual(['1.2.0', '1.0.0']);
    const old = await registry.get<PackageRecord>('/registry/default/v0.1/x/dev.toolyard/skills/com.acme/pdf-tools/versions/1.0.0');
    expect(old.body.description).toBe('Reads PDF files');
  });

  it('serves plugins the same way', async () => {
    const list = await registry.get<{ plugins: PackageRecord[] }>('/registry/default/v0.1/x/dev.toolyard/plugins');
    expect(list.body.plugins.map((plugin) => `${plugin.name}@${plugin.version}`)).toEqual(['review@2.0.0']);
    const versions = await registry.get<{ plugins: PackageRecord[] }>('/registry/default/v0.1/x/dev.toolyard/plugins/com.acme/review/versions');
    expect(versions.body.plugins.map((plugin) => plugin.version)).toEqual(['2.0.0', '1.0.0']);
    const one = await registry.get<PackageRecord>('/registry/default/v0.1/x/dev.toolyard/plugins/com.acme/review/versions/1.0.0');
    expect(one.body._meta[OFFICIAL]?.isLatest).toBe(false);
  });

  it('serves the example catalog that npm start uses', async () => {
    const { body } = await registry.get<ServerList>('/registry/examples/v0.1/servers?version=latest');
    expect(body.metadata.count).toBe(5);
    const skills = await registry.get<{ skills: PackageRecord[] }>('/registry/examples/v0.1/x/dev.toolyard/skills');
    expect(skills.body.skills.map((skill) => `${skill.name}@${skill.version}`)).toEqual(['release-notes@1.1.0', 'sql-review@0.3.0']);
  });
});
