import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registryTestApp, type RegistryTestApp } from '../../src/runtime/registry/registry-testing.js';
import { EXAMPLE_CATALOG } from '../helpers/registry.js';

interface ServerPage {
  metadata: { limit: number; page: number; total: number };
  servers: { name: string; version: string; description?: string }[];
}
interface PackagePage {
  metadata: { limit: number; page: number; total: number };
  skills?: { namespace: string; name: string; version: string }[];
  plugins?: { namespace: string; name: string; version: string }[];
}

const pad = (index: number) => String(index).padStart(3, '0');
/** 120 servers, one of them in two versions: three pages of the default 50. */
const manyServers = () => [
  ...Array.from({ length: 120 }, (_, index) => ({
    name: `com.acme/server-${pad(index)}`,
    title: index === 7 ? 'Weather station' : `Server ${pad(index)}`,
    description: index % 10 === 0 ? 'reads the tide tables' : 'does something',
    version: '1.0.0',
    packages: [{ registryType: 'npm', identifier: `@acme/server-${pad(index)}`, version: '1.0.0', transport: { type: 'stdio' } }],
    _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { 'com.acme': { tags: index === 42 ? ['oceanography'] : ['generic'] } } },
  })),
  {
    name: 'com.acme/server-000',
    title: 'Server 000',
    description: 'reads the tide tables, better',
    version: '1.1.0',
    packages: [{ registryType: 'npm', identifier: '@acme/server-000', version: '1.1.0', transport: { type: 'stdio' } }],
  },
];

describe('the browse API', () => {
  let runtime: RegistryTestApp;

  beforeAll(async () => {
    runtime = await registryTestApp();
    const path = join(runtime.dir, 'many.json');
    await writeFile(path, JSON.stringify({ servers: manyServers() }));
    await runtime.call('PUT', '/api/v1beta/registry/default', { local_path: path });
  });

  it('pages from 1 with 50 servers by default, sorted by name', async () => {
    const first = await runtime.call<ServerPage>('GET', '/registry/default/v0.1/servers');
    expect(first.body.metadata).toEqual({ limit: 50, page: 1, total: 120 });
    expect(first.body.servers).toHaveLength(50);
    expect(first.body.servers[0]).toMatchObject({ name: 'com.acme/server-000', version: '1.1.0' });
    const last = await runtime.call<ServerPage>('GET', '/registry/default/v0.1/servers?page=3');
    expect(last.body.servers.map((server) => server.name)).toEqual(Array.from({ length: 20 }, (_, index) => `com.acme/server-${pad(index + 100)}`));
    const beyond = await runtime.call<ServerPage>('GET', '/registry/default/v0.1/servers?page=9&limit=200');
    expect(beyond.body).toEqual({ metadata: { limit: 200, page: 9, total: 120 }, servers: [] });
    expect((await runtime.call<ServerPage>('GET', '/registry/default/v0.1/servers?limit=200')).body.servers).toHaveLength(120);
  });

  it('searches names, titles, descriptions and tags, every word of q', async () => {
    const search = async (q: string) => (await runtime.call<ServerPage>('GET', `/registry/default/v0.1/servers?q=${encodeURIComponent(q)}&limit=200`)).body;
    expect((await search('weather')).servers.map((server) => server.name)).toEqual(['com.acme/server-007']);
    expect((await search('OCEANOGRAPHY')).servers.map((server) => server.name)).toEqual(['com.acme/server-042']);
    expect((await search('server-11')).metadata.total).toBe(10);
    expect((await search('tide tables')).metadata.total).toBe(12);
    expect((await search('tide better')).servers.map((server) => server.name)).toEqual(['com.acme/server-000']);
    expect((await search('nothing-like-this')).servers).toEqual([]);
  });

  it('answers 400 for a page or limit out of range', async () => {
    for (const query of ['page=0', 'limit=0', 'limit=201', 'limit=ten', 'page=-1']) {
      expect((await runtime.call('GET', `/registry/default/v0.1/servers?${query}`)).status, query).toBe(400);
      expect((await runtime.call('GET', `/registry/default/v0.1/x/dev.toolyard/skills?${query}`)).status, query).toBe(400);
    }
  });

  it('gets the latest server.json by URL-encoded name, 404 for an unknown one', async () => {
    const latest = await runtime.call('GET', `/registry/default/v0.1/servers/${encodeURIComponent('com.acme/server-000')}/versions/latest`);
    expect(latest).toMatchObject({ status: 200, body: { name: 'com.acme/server-000', version: '1.1.0', description: 'reads the tide tables, better' } });
    expect((await runtime.call('GET', '/registry/default/v0.1/servers/server-001/versions/latest')).body).toMatchObject({ name: 'com.acme/server-001' });
    expect((await runtime.call('GET', `/registry/default/v0.1/servers/${encodeURIComponent('com.acme/nope')}/versions/latest`)).status).toBe(404);
  });

  it('has empty skill and plugin lists for a catalog file without them', async () => {
    expect((await runtime.call('GET', '/registry/default/v0.1/x/dev.toolyard/skills')).body).toEqual({ metadata: { limit: 50, page: 1, total: 0 }, skills: [] });
    expect((await runtime.call('GET', '/registry/default/v0.1/x/dev.toolyard/plugins/a/b')).status).toBe(404);
  });

  it('serves skills and plugins from an upstream-form file that has them', async () => {
    const other = await registryTestApp();
    await other.call('PUT', '/api/v1beta/registry/default', { local_path: EXAMPLE_CATALOG });
    const skills = await other.call<PackagePage>('GET', '/registry/default/v0.1/x/dev.toolyard/skills?q=release');
    expect(skills.body).toMatchObject({ metadata: { total: 1 }, skills: [{ name: 'release-notes', version: '1.1.0' }] });
    expect((await other.call('GET', '/registry/default/v0.1/x/dev.toolyard/plugins/dev.toolyard.examples/code-review')).status).toBe(200);
  });
});
