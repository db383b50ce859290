import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printingPackage, startFakeNpmRegistry, type FakeNpmRegistry } from '../../src/runtime/packages/npm-registry-testing.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { waitFor } from '../helpers/cli.js';
import { createTestRegistry, type TestRegistry } from '../helpers/registry.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const SERVER = 'io.github.example/tiny-mcp';
const PACKAGE = '@example/tiny-mcp';
const TOKEN_VALUE = 'tiny-token-VALUE-5e0c9a';

const serverJson = (version: string) => ({
  name: SERVER,
  version,
  description: 'a tiny MCP server',
  packages: [
    {
      registryType: 'npm',
      identifier: PACKAGE,
      version,
      transport: { type: 'stdio' },
      environmentVariables: [
        { name: 'TINY_MODE', description: 'how tiny', isRequired: true },
        { name: 'TINY_TOKEN', description: 'the API token', isSecret: true },
      ],
    },
  ],
});

interface NpmFront {
  url: string;
  /** Every request npm made, packuments and tarballs alike. */
  requests: string[];
  /** Serves the versions of this fake registry too, beside those published before. */
  publish: (version: string) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * One npm registry URL for every published version: the fake npm registry serves one version per
 * package, so each version gets its own and this front merges their packuments (tarball URLs still
 * point at the registry that packed them).
 */
async function startNpmFront(workDir: string): Promise<NpmFront> {
  const packEnv = { PATH: process.env.PATH ?? '', HOME: join(workDir, 'home'), npm_config_cache: join(workDir, 'npm-cache') };
  const backends: FakeNpmRegistry[] = [];
  const requests: string[] = [];
  const packument = async (path: string): Promise<Record<string, unknown> | undefined> => {
    const found: Record<string, unknown>[] = [];
    for (const backend of backends) {
      const response = await fetch(new URL(path.slice(1), backend.url));
      if (response.ok) found.push((await response.json()) as Record<string, unknown>);
    }
    if (found.length === 0) return undefined;
    return { ...found.at(-1), versions: Object.assign({}, ...found.map((each) => each.versions)) as unknown };
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    packument(path).then(
      (body) => res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'Not found' })),
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`,
    requests,
    publish: async (version) => {
      backends.push(await startFakeNpmRegistry([printingPackage(PACKAGE, version, 'index.js')], workDir, packEnv));
    },
    close: async () => {
      await Promise.all(backends.map((backend) => backend.close()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a catalog server from this project registry, installed, upgraded and given to a client (fake supervisor, real npm)', () => {
  let root: string;
  let catalog: TestRegistry;
  let npm: NpmFront;
  let runtime: TestRuntime;
  /** Every response body of the runtime, to show that no secret value ever leaves it. */
  const bodies: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the body type they expect
  const call = async <T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
    const response = await runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    bodies.push(response.body);
    return { status: response.statusCode, body: (response.body === '' ? undefined : JSON.parse(response.body)) as T };
  };
  const cursorServers = async () => {
    const file = JSON.parse(await readFile(join(runtime.home, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers?: Record<string, { url: string }> };
    return file.mcpServers ?? {};
  };
  const installed = async (version: string) => {
    const manifest = join(runtimePaths(runtime.env).cache, 'npm', `${PACKAGE}@${version}`.replace('/', '_'), 'node_modules', PACKAGE, 'package.json');
    return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-catalog-e2e-'));
    catalog = await createTestRegistry({
      config: { sources: [{ name: 'internal', managed: {} }], registries: [{ name: 'default', sources: ['internal'] }] },
    });
    await catalog.syncNow();
    expect(await catalog.send('POST', '/v1/entries', { server: serverJson('1.0.0') })).toEqual({ status: 201, body: {} });
    await catalog.http.listen({ port: 0, host: '127.0.0.1' });
    npm = await startNpmFront(root);
    await npm.publish('1.0.0');
    runtime = await testRuntime({
      supervisor: 'fake',
      // npm's own cache and settings stay out of the user's
      env: { npm_config_registry: npm.url, npm_config_cache: join(root, 'npm-cache'), npm_config_userconfig: join(root, 'npmrc') },
    });
  });
  afterAll(async () => {
    await runtime.close();
    await npm.close();
    await catalog.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('installs from the catalog, upgrades when it gains a version, and keeps the client file in step', async () => {
    const apiUrl = `http://127.0.0.1:${String((catalog.http.server.address() as AddressInfo).port)}/registry/default`;
    expect(await call('PUT', '/registry/default', { api_url: apiUrl, allow_private_ip: true })).toEqual({ status: 200, body: { type: 'api' } });
    const listed = await call<{ servers: { name: string; image: string }[] }>('GET', '/registry/default/servers');
    expect(listed.body.servers).toEqual([expect.objectContaining({ name: 'tiny-mcp', image: `npx://${PACKAGE}@1.0.0` })]);

    // a required env var left out is refused before anything is installed
    const missing = await call<{ error: string }>('POST', '/workloads', { registry: 'default', server: 'tiny-mcp' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/TINY_MODE/);
    expect(npm.requests).toEqual([]);

    expect((await call('POST', '/secrets/default/keys', { key: 'tiny_token', value: TOKEN_VALUE })).status).toBe(201);
    const created = await call<{ name: string; port: number }>('POST', '/workloads', { registry: 'default', server: 'tiny-mcp', env_vars: { TINY_MODE: 'x' } });
    expect(created.status).toBe(201);
    const { name, port } = created.body;
    const exported = await call('GET', `/workloads/${name}/export`);
    expect(exported.body).toMatchObject({
      image: `npx://${PACKAGE}@1.0.0`,
      registry_server_name: SERVER,
      env_vars: { TINY_MODE: 'x' },
    });
    // the entry's secret env var became a reference to the stored key, never its value
    expect(exported.body.secrets).toEqual([{ name: 'tiny_token', target: 'TINY_TOKEN' }]);
    expect(await installed('1.0.0')).toBe('1.0.0');
    // the details show what the entry resolved to beside the reference, and go back to edit as they are
    const details = await call('GET', `/workloads/${name}`);
    expect(details.body).toMatchObject({ registry: 'default', server: 'tiny-mcp', image: `npx://${PACKAGE}@1.0.0` });
    expect(await call('POST', `/workloads/${name}/edit`, details.body)).toEqual({ status: 200, body: { name, port } });

    // the catalog and npm gain 1.1.0
    expect(await catalog.send('POST', '/v1/entries', { server: serverJson('1.1.0') })).toEqual({ status: 201, body: {} });
    await npm.publish('1.1.0');
    expect((await call('POST', '/registry/default/refresh')).body).toMatchObject({ name: 'default', type: 'api', server_count: 1 });
    const check = await call<{ result: Record<string, unknown> }>('GET', `/workloads/${name}/upgrade-check`);
    expect(check.body.result).toMatchObject({ status: 'upgrade-available', current_image: `npx://${PACKAGE}@1.0.0`, candidate_image: `npx://${PACKAGE}@1.1.0` });
    const upgraded = await call<{ result: Record<string, unknown> }>('POST', `/workloads/${name}/upgrade`);
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.result).toMatchObject({ status: 'upgraded', candidate_image: `npx://${PACKAGE}@1.1.0` });
    const after = await call('GET', `/workloads/${name}/export`);
    expect(after.body).toMatchObject({ image: `npx://${PACKAGE}@1.1.0`, port, registry_server_name: SERVER, env_vars: { TINY_MODE: 'x' } });
    expect(after.body.secrets).toEqual([{ name: 'tiny_token', target: 'TINY_TOKEN' }]);
    expect((await call('GET', `/workloads/${name}`)).body).toMatchObject({ registry: 'default', server: 'tiny-mcp', image: `npx://${PACKAGE}@1.1.0` });
    expect((await call('GET', `/workloads/${name}/status`)).body).toMatchObject({ status: 'running' });
    expect(await installed('1.1.0')).toBe('1.1.0');

    // a registered client is pointed at the running workload, and let go of it on delete
    expect((await call('POST', '/clients', { name: 'cursor' })).status).toBe(200);
    const url = `http://127.0.0.1:${String(port)}/mcp`;
    expect(await cursorServers()).toEqual({ [name]: { url } });
    expect((await call('DELETE', `/workloads/${name}`)).status).toBe(202);
    await waitFor(async () => (Object.keys(await cursorServers()).length === 0 ? true : undefined), 5_000, 'the workload to leave mcp.json');
    expect((await call<{ workloads: unknown[] }>('GET', '/workloads?all=true')).body.workloads).toEqual([]);

    expect(bodies.filter((body) => body.includes(TOKEN_VALUE))).toEqual([]);
  });
});
