import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryTestApp, type RegistryTestApp } from '../../src/runtime/registry/registry-testing.js';
import type { ContainerServerEntry } from '../../src/runtime/registry/schemas.js';
import { catalogFile, createTestRegistry, EXAMPLE_CATALOG, type TestRegistry } from '../helpers/registry.js';

interface PackagePage {
  metadata: { limit: number; page: number; total: number };
  skills?: { namespace: string; name: string; version: string }[];
  plugins?: { namespace: string; name: string; version: string }[];
}

const pad = (index: number) => String(index).padStart(3, '0');
const npmServer = (index: number, version: string) => ({
  name: `com.acme/server-${pad(index)}`,
  version,
  description: `server ${pad(index)}`,
  packages: [{ registryType: 'npm', identifier: `@acme/server-${pad(index)}`, version, transport: { type: 'stdio' } }],
});
/** 120 servers, one of them in two versions: more than one page of the registry API (100 at most). */
const manyServers = () => [...Array.from({ length: 120 }, (_, index) => npmServer(index, '1.0.0')), npmServer(0, '1.1.0')];

describe('this project registry server as the api_url backend', () => {
  let upstream: TestRegistry;
  let runtime: RegistryTestApp;
  let apiUrl: string;

  beforeAll(async () => {
    const examples = JSON.parse(await readFile(EXAMPLE_CATALOG, 'utf8')) as { data: { skills: unknown[]; plugins: unknown[] } };
    const catalog = { version: '1.0.0', meta: { last_updated: '2026-03-01T00:00:00Z' }, data: { servers: manyServers(), skills: examples.data.skills, plugins: examples.data.plugins } };
    upstream = await createTestRegistry({
      config: {
        sources: [{ name: 'inline', file: { path: await catalogFile(catalog) }, syncPolicy: { interval: '1h' } }],
        registries: [{ name: 'default', sources: ['inline'] }],
      },
    });
    await upstream.syncNow();
    await upstream.http.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${String((upstream.http.server.address() as AddressInfo).port)}/registry/default`;
    runtime = await registryTestApp();
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { api_url: apiUrl, allow_private_ip: true })).body).toEqual({ type: 'api' });
  });
  afterAll(() => upstream.dispose());

  it('reads every page, one entry per server at its latest version', async () => {
    const { body } = await runtime.call<{ registries: { type: string; source: string; server_count: number }[] }>('GET', '/api/v1beta/registry');
    expect(body.registries[0]).toMatchObject({ type: 'api', source: apiUrl, server_count: 120 });
    const found = await runtime.registry.findServer('default', 'server-000');
    expect(found).toEqual({ is_remote: false, server: expect.objectContaining({ name: 'server-000', image: 'npx://@acme/server-000@1.1.0', version: '1.1.0' }) as ContainerServerEntry });
    expect(await runtime.registry.findServer('default', 'com.acme/server-119')).toMatchObject({ server: { image: 'npx://@acme/server-119@1.0.0' } });
    expect(await runtime.registry.describe('default')).toEqual({ url: '', api_url: apiUrl });
  });

  it('browses the skills and plugins of the backend', async () => {
    const skills = await runtime.call<PackagePage>('GET', '/registry/default/v0.1/x/dev.toolyard/skills');
    expect(skills.body.skills?.map((skill) => `${skill.namespace}/${skill.name}@${skill.version}`)).toEqual([
      'dev.toolyard.examples/release-notes@1.1.0',
      'dev.toolyard.examples/sql-review@0.3.0',
    ]);
    expect((await runtime.call('GET', '/registry/default/v0.1/x/dev.toolyard/skills/dev.toolyard.examples/sql-review')).body).toMatchObject({ name: 'sql-review' });
    const plugins = await runtime.call<PackagePage>('GET', '/registry/default/v0.1/x/dev.toolyard/plugins?q=review');
    expect(plugins.body).toMatchObject({ metadata: { total: 1 }, plugins: [{ name: 'code-review' }] });
    expect((await runtime.call('GET', '/registry/default/v0.1/x/dev.toolyard/plugins/dev.toolyard.examples/nope')).status).toBe(404);
  });
});
