import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonFetcher, guardedLookup, type Fetch } from '../../src/runtime/registry/fetcher.js';
import { registryTestApp, sendJson, startHttpServer, type RegistryTestApp, type TestHttpServer } from '../../src/runtime/registry/registry-testing.js';
import type { ContainerServerEntry, RemoteServerEntry } from '../../src/runtime/registry/schemas.js';
import { manualClock } from '../helpers/clock.js';

interface Summary {
  name: string;
  type: string;
  source: string;
  version: string;
  server_count: number;
}
interface Entries {
  servers: ContainerServerEntry[];
  remote_servers: RemoteServerEntry[];
}

const localForm = (servers: Record<string, object>, version = '1.0.0') => ({ version, last_updated: '2026-02-01T00:00:00Z', servers, remote_servers: {} });
const upstream = (...names: string[]) => ({
  servers: names.map((name) => ({ name, version: '1.0.0', description: `about ${name}`, packages: [{ registryType: 'npm', identifier: `@acme/${name.split('/')[1] ?? ''}`, version: '1.0.0' }] })),
});

let servers: TestHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});
async function serve(handler: Parameters<typeof startHttpServer>[0]): Promise<TestHttpServer> {
  const server = await startHttpServer(handler);
  servers.push(server);
  return server;
}

describe('the shipped catalog', () => {
  it('backs the default registry until something else is configured', async () => {
    const { call } = await registryTestApp();
    const list = await call<{ registries: Summary[] }>('GET', '/api/v1beta/registry');
    expect(list.status).toBe(200);
    expect(list.body.registries).toEqual([
      expect.objectContaining({ name: 'default', type: 'default', source: '', version: '1.0.0', server_count: 9, auth_status: 'none' }),
    ]);
    const entries = await call<Entries>('GET', '/api/v1beta/registry/default/servers');
    expect(entries.body.servers.map((server) => server.name)).toEqual(['everything', 'fetch', 'filesystem', 'git', 'memory', 'sequential-thinking', 'time']);
    expect(entries.body.remote_servers.map((server) => server.name)).toEqual(['deepwiki', 'github']);
    const memory = entries.body.servers.find((server) => server.name === 'memory');
    expect(memory).toMatchObject({ image: 'npx://@modelcontextprotocol/server-memory@2026.8.31', transport: 'stdio', tier: 'Official', status: 'Active', tags: ['reference', 'memory', 'knowledge-graph'] });
    expect(memory?.tools).toContain('read_graph');
    expect(memory?.env_vars).toEqual([{ name: 'MEMORY_FILE_PATH', description: expect.any(String) as string, required: false, secret: false, default: '' }]);
    expect(entries.body.servers.find((server) => server.name === 'fetch')?.image).toBe('uvx://mcp-server-fetch@2026.10.24');
  });

  it('finds a server by its entry name and by its URL-encoded full name, and says which kind it is', async () => {
    const { call, registry } = await registryTestApp();
    const short = await call('GET', '/api/v1beta/registry/default/servers/github');
    const full = await call('GET', `/api/v1beta/registry/default/servers/${encodeURIComponent('dev.toolyard.catalog/github')}`);
    expect(short.status).toBe(200);
    expect(full.body).toEqual(short.body);
    expect(short.body).toMatchObject({
      is_remote: true,
      remote_server: { name: 'github', url: 'https://api.githubcopilot.com/mcp/', headers: [{ name: 'Authorization', required: true, secret: true }] },
    });
    expect((await call('GET', '/api/v1beta/registry/default/servers/everything')).body).toMatchObject({ is_remote: false, server: { name: 'everything' } });
    expect(await registry.findServer('default', 'dev.toolyard.catalog/time')).toMatchObject({ is_remote: false, server: { name: 'time' } });
    expect(await registry.findServer('default', 'nope')).toBeUndefined();
  });

  it('answers 404 for an unknown server or registry, and for a PUT to another registry', async () => {
    const { call, registry } = await registryTestApp();
    expect((await call('GET', '/api/v1beta/registry/default/servers/nope')).status).toBe(404);
    expect((await call('GET', '/api/v1beta/registry/other')).status).toBe(404);
    expect((await call('GET', '/api/v1beta/registry/other/servers')).status).toBe(404);
    expect((await call('PUT', '/api/v1beta/registry/other', {})).status).toBe(404);
    expect((await call('POST', '/api/v1beta/registry/other/refresh')).status).toBe(404);
    await expect(registry.findServer('other', 'memory')).rejects.toThrow(/no registry named "other"/);
  });

  it('lists the full registry with its entry maps', async () => {
    const { call } = await registryTestApp();
    const { body } = await call<{ registry: { servers: Record<string, ContainerServerEntry>; remote_servers: Record<string, RemoteServerEntry>; groups: unknown[] } }>(
      'GET',
      '/api/v1beta/registry/default',
    );
    expect(Object.keys(body.registry.servers)).toContain('filesystem');
    expect(body.registry.remote_servers.deepwiki?.transport).toBe('streamable-http');
    expect(body.registry.groups).toEqual([]);
    expect(body).toMatchObject({ name: 'default', type: 'default', server_count: 9 });
  });
});

describe('a local catalog file', () => {
  it('is read again when it changes, and the setting survives a restart', async () => {
    const runtime = await registryTestApp();
    const path = join(runtime.dir, 'catalog.json');
    await writeFile(path, JSON.stringify(localForm({ alpha: { image: 'npx://alpha@1.0.0', description: 'first' } })));
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { local_path: path })).body).toEqual({ type: 'file' });
    expect(JSON.parse(await readFile(join(runtime.paths.config, 'registry.json'), 'utf8'))).toEqual({ local_path: path });
    expect((await runtime.call<Entries>('GET', '/api/v1beta/registry/default/servers')).body.servers.map((server) => server.image)).toEqual(['npx://alpha@1.0.0']);

    await writeFile(path, JSON.stringify(localForm({ alpha: { image: 'npx://alpha@2.0.0' }, beta: { image: 'ghcr.io/acme/beta:1', transport: 'sse', target_port: 9000 } })));
    const later = new Date(Date.now() + 5000);
    await utimes(path, later, later);
    const entries = (await runtime.call<Entries>('GET', '/api/v1beta/registry/default/servers')).body.servers;
    expect(entries.map((server) => [server.name, server.image])).toEqual([
      ['alpha', 'npx://alpha@2.0.0'],
      ['beta', 'ghcr.io/acme/beta:1'],
    ]);
    expect(entries[1]).toMatchObject({ transport: 'sse', target_port: 9000, env_vars: [], tools: [], status: 'Active' });

    const restarted = await runtime.restart();
    expect((await restarted.call<{ registries: Summary[] }>('GET', '/api/v1beta/registry')).body.registries[0]).toMatchObject({ type: 'file', source: path, server_count: 2 });
    expect(await restarted.registry.describe('default')).toEqual({ url: path, api_url: '' });
  });

  it('keeps serving the last good read when the file turns bad', async () => {
    const runtime = await registryTestApp();
    const path = join(runtime.dir, 'catalog.json');
    await writeFile(path, JSON.stringify(localForm({ alpha: { image: 'npx://alpha@1.0.0' } })));
    await runtime.call('PUT', '/api/v1beta/registry/default', { local_path: path });
    await writeFile(path, '{ not json');
    expect((await runtime.call<Entries>('GET', '/api/v1beta/registry/default/servers')).body.servers).toHaveLength(1);
  });

  it('refuses a relative, missing or non-catalog file and keeps the registry as it was', async () => {
    const runtime = await registryTestApp();
    const notCatalog = join(runtime.dir, 'other.json');
    await writeFile(notCatalog, JSON.stringify({ hello: 'world' }));
    for (const local_path of ['catalog.json', join(runtime.dir, 'missing.json'), notCatalog]) {
      const response = await runtime.call('PUT', '/api/v1beta/registry/default', { local_path });
      expect(response.status, local_path).toBe(400);
    }
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { local_path: notCatalog, url: 'https://example.com/c.json' })).status).toBe(400);
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { colour: 'blue' })).status).toBe(400);
    expect((await runtime.call<{ registries: Summary[] }>('GET', '/api/v1beta/registry')).body.registries[0]?.type).toBe('default');
  });

  it('an empty body resets to the shipped catalog', async () => {
    const runtime = await registryTestApp();
    const path = join(runtime.dir, 'catalog.json');
    await writeFile(path, JSON.stringify(localForm({ alpha: { image: 'npx://alpha@1.0.0' } })));
    await runtime.call('PUT', '/api/v1beta/registry/default', { local_path: path });
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', {})).body).toEqual({ type: 'default' });
    expect((await runtime.call<{ registries: Summary[] }>('GET', '/api/v1beta/registry')).body.registries[0]).toMatchObject({ type: 'default', server_count: 9 });
  });

  it('answers 503 when the configured file cannot be read and nothing was read before', async () => {
    const runtime = await registryTestApp();
    await mkdir(runtime.paths.config, { recursive: true });
    await writeFile(join(runtime.paths.config, 'registry.json'), JSON.stringify({ local_path: join(runtime.dir, 'gone.json') }));
    expect((await runtime.call('GET', '/api/v1beta/registry/default/servers')).status).toBe(503);
    expect((await runtime.call('GET', '/registry/default/v0.1/servers')).status).toBe(503);
    await expect(runtime.registry.findServer('default', 'alpha')).rejects.toMatchObject({ status: 503 });
  });
});

describe('a catalog URL', () => {
  it('is cached for an hour, on disk too, and fetched again by refresh or when the hour is over', async () => {
    let names = ['com.acme/one'];
    const server = await serve((request, response) => sendJson(response, upstream(...names)));
    const clock = manualClock();
    const runtime = await registryTestApp({ clock });
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { url: `${server.url}/catalog.json`, allow_private_ip: true })).body).toEqual({ type: 'url' });
    const count = async (app: RegistryTestApp) => (await app.call<{ registries: Summary[] }>('GET', '/api/v1beta/registry')).body.registries[0]?.server_count;
    expect(await count(runtime)).toBe(1);
    names = ['com.acme/one', 'com.acme/two'];
    clock.advance(30 * 60 * 1000);
    expect(await count(runtime)).toBe(1);
    expect(server.requests).toHaveLength(1);

    const restarted = await runtime.restart();
    expect(await count(restarted)).toBe(1);
    expect(server.requests).toHaveLength(1);

    expect((await runtime.call<Summary>('POST', '/api/v1beta/registry/default/refresh')).body).toMatchObject({ type: 'url', server_count: 2 });
    expect(await count(runtime)).toBe(2);

    names = ['com.acme/one', 'com.acme/two', 'com.acme/three'];
    clock.advance(61 * 60 * 1000);
    expect(await count(runtime)).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(await runtime.registry.describe('default')).toEqual({ url: `${server.url}/catalog.json`, api_url: '' });
  });

  it('serves the cached catalog when the URL stops answering after the hour', async () => {
    const server = await serve((request, response) => sendJson(response, upstream('com.acme/one')));
    const clock = manualClock();
    const runtime = await registryTestApp({ clock, fetchTimeoutMs: 2000 });
    await runtime.call('PUT', '/api/v1beta/registry/default', { url: server.url, allow_private_ip: true });
    await server.close();
    clock.advance(2 * 60 * 60 * 1000);
    expect((await runtime.call<Entries>('GET', '/api/v1beta/registry/default/servers')).body.servers.map((entry) => entry.name)).toEqual(['one']);
    expect((await runtime.call('POST', '/api/v1beta/registry/default/refresh')).status).toBe(504);
    expect((await runtime.call<Entries>('GET', '/api/v1beta/registry/default/servers')).body.servers).toHaveLength(1);
  });

  it('answers 502 for a URL that answers with something other than a catalog', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/html') response.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
      else if (request.url === '/json') sendJson(response, { hello: 'world' });
      else sendJson(response, { error: 'broken' }, 500);
    });
    const runtime = await registryTestApp();
    for (const path of ['/html', '/json', '/fails']) {
      const response = await runtime.call('PUT', '/api/v1beta/registry/default', { url: `${server.url}${path}`, allow_private_ip: true });
      expect(response.status, path).toBe(502);
    }
    expect((await runtime.call<{ registries: Summary[] }>('GET', '/api/v1beta/registry')).body.registries[0]?.type).toBe('default');
  });

  it('answers 504 for a URL that never answers or cannot be reached', async () => {
    const silent = await serve(() => undefined);
    const runtime = await registryTestApp({ fetchTimeoutMs: 150 });
    const response = await runtime.call('PUT', '/api/v1beta/registry/default', { url: `${silent.url}/catalog.json`, allow_private_ip: true });
    expect(response).toMatchObject({ status: 504, body: { error: expect.stringMatching(/did not answer within 150 ms/) as string } });
    const closed = await serve(() => undefined);
    await closed.close();
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { api_url: closed.url, allow_private_ip: true })).status).toBe(504);
  });

  it('refuses loopback and private addresses unless allow_private_ip is set', async () => {
    const server = await serve((request, response) => sendJson(response, upstream('com.acme/one')));
    const runtime = await registryTestApp();
    const port = new URL(server.url).port;
    for (const url of [`${server.url}/c.json`, `http://localhost:${port}/c.json`, `http://[::1]:${port}/c.json`, 'http://10.1.2.3/c.json', 'http://169.254.169.254/latest']) {
      const response = await runtime.call('PUT', '/api/v1beta/registry/default', { url });
      expect(response.status, url).toBe(400);
      expect((response.body as { error: string }).error).toMatch(/allow_private_ip/);
    }
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { api_url: server.url })).status).toBe(400);
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { url: 'ftp://example.com/c.json' })).status).toBe(400);
    expect(server.requests).toEqual([]);
  });

  it('follows redirects', async () => {
    const target = await serve((request, response) => sendJson(response, upstream('com.acme/one')));
    const redirector = await serve((request, response) => response.writeHead(302, { location: `${target.url}/c.json` }).end());
    const runtime = await registryTestApp();
    expect((await runtime.call('PUT', '/api/v1beta/registry/default', { url: `${redirector.url}/c.json`, allow_private_ip: true })).body).toEqual({ type: 'url' });
    expect(target.requests).toEqual(['/c.json']);
  });

  it('checks the addresses a host name resolves to when connecting', async () => {
    const resolve = (all: boolean) =>
      new Promise<unknown>((done) => {
        guardedLookup('localhost', { all }, (error) => done(error));
      });
    expect(await resolve(true)).toMatchObject({ status: 400, message: expect.stringMatching(/localhost resolves to the private or loopback address/) as string });
    expect(await resolve(false)).toMatchObject({ status: 400 });
  });

  it('refuses a redirect from a public address to a private one', async () => {
    const hops: string[] = [];
    const fakeFetch = ((input: URL) => {
      hops.push(input.href);
      return Promise.resolve(new Response(null, { status: 302, headers: { location: 'http://127.0.0.1:9/catalog.json' } }));
    }) as unknown as Fetch;
    const fetchJson = createJsonFetcher({ fetch: fakeFetch });
    await expect(fetchJson('http://93.184.216.34/catalog.json', { allowPrivateIp: false })).rejects.toMatchObject({ status: 400 });
    expect(hops).toEqual(['http://93.184.216.34/catalog.json']);
  });
});
