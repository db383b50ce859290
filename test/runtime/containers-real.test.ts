import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient } from '../../src/runtime/containers/engine.js';
import { call as engineCall } from '../../src/runtime/containers/engine-http.js';
import { everythingEntry } from '../../src/runtime/workloads/supervisor-testing.js';
import { waitFor } from '../helpers/cli.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/docker-registry.js';
import { importTestImages, type TestImages } from '../helpers/oci-rootfs.js';
import { startPodman, type PodmanService, type PodmanStart } from '../helpers/podman.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

/*
 * Image workloads against a real engine: a private Podman service, started for this file, serving
 * the Docker Engine API on its own socket, and Debian's docker-registry on a loopback port to pull
 * from. Where either cannot run, one test says why and the fake engine's tests still cover the runtime.
 */
const API = '/api/v1beta';
const SECRET_VALUE = 'never-show-this-value-3f9b2c71';
const local = await startLocalRegistry();
const started: PodmanStart = local.registry === undefined ? { reason: local.reason } : await startPodman({ insecureRegistries: [local.registry.host] });

afterAll(async () => {
  await started.podman?.stop();
  await local.registry?.stop();
});

/** The installed node_modules, mounted read-only at the same path so server-everything resolves its packages in the container. */
const nodeModules = everythingEntry.slice(0, everythingEntry.lastIndexOf('/node_modules/') + '/node_modules'.length);

async function callTool(port: number, name: string, args: Record<string, unknown>): Promise<string> {
  const client = new Client({ name: 'containers-real-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${String(port)}/mcp`)));
  try {
    const result = await client.callTool({ name, arguments: args });
    return (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
  } finally {
    await client.close();
  }
}

/** The part of the engine's container inspect answer the tests read. */
interface ContainerDetails {
  Image: string;
  HostConfig: { NetworkMode: string; Binds: string[] | null; Privileged: boolean };
  Config: { Labels: Record<string, string> };
}

function realEngineTests(podman: PodmanService, registry: LocalRegistry): void {
  // each container gets its own copy of a ~100 MB root file system, and a slow machine takes its time
  describe('image workloads in a real Podman, pulled from a local registry', { timeout: 60_000 }, () => {
    const engineSocket = podman.socketPath;
    const registryHost = registry.host;
    const engine = createEngineClient({ socketPath: engineSocket });
    const everything = (tag: 1 | 2) => `${registryHost}/toolyard/everything:${String(tag)}`;
    let images: TestImages;
    let dir: string;
    let runtime: TestRuntime;

    const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
      runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    const statusOf = async (name: string) => (await call('GET', `/workloads/${name}/status`)).json<{ status: string }>().status;
    const containersOf = (workload: string) => engine.list({ 'dev.toolyard.workload': workload });
    const inspect = (id: string) => engineCall<ContainerDetails>(engineSocket, { method: 'GET', path: `/containers/${id}/json`, what: 'inspect' }, 5000);
    /** The workload's container once the engine runs it (a stdio server counts as started once its runner lives). */
    const runningContainer = (workload: string) =>
      waitFor(async () => (await containersOf(workload)).find((container) => container.State === 'running'), 30_000, `${workload}'s running container`);
    const imageId = async (reference: string) => (await engine.inspectImage(reference))?.Id;

    beforeAll(async () => {
      images = await importTestImages(podman);
      await podman.cli(['push', '--quiet', '--tls-verify=false', images.node[0], everything(1)]);
      await podman.cli(['push', '--quiet', '--tls-verify=false', images.node[1], everything(2)]);
      dir = await mkdtemp(join(tmpdir(), 'toolyard-containers-real-'));
      runtime = await testRuntime({ supervisor: 'real', env: { DOCKER_HOST: podman.dockerHost, TOOLYARD_SECRET_API_KEY: SECRET_VALUE } });
    });
    afterAll(async () => {
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('pulls an image from the registry, runs its stdio MCP server with a read-only volume, and a tool call through the proxy reaches it with its env and secret', async () => {
      const created = await call('POST', '/workloads', {
        name: 'everything',
        image: everything(1),
        cmd_arguments: [everythingEntry, 'stdio'],
        env_vars: { GREETING: 'hello' },
        secrets: [{ name: 'api-key', target: 'API_KEY' }],
        volumes: [`${nodeModules}:${nodeModules}:ro`],
      });
      expect(created.statusCode, created.body).toBe(201);
      const pulled = (await call('GET', '/workloads/everything/proxy-logs')).body;
      expect(pulled).toMatch(/Pulling fs layer|Download complete|Already exists/);
      expect(pulled).toContain(`image ${(await imageId(everything(1))) ?? 'missing'}`);
      const port = created.json<{ port: number }>().port;

      expect(await callTool(port, 'echo', { message: 'through podman' })).toContain('through podman');
      const env = JSON.parse(await callTool(port, 'get-env', {})) as Record<string, string>;
      expect(env).toMatchObject({ GREETING: 'hello', API_KEY: SECRET_VALUE, IMAGE_VERSION: '1' });
      expect(env.XDG_STATE_HOME).toBeUndefined();

      const container = await inspect((await runningContainer('everything')).Id);
      expect(container.Image).toBe(await imageId(everything(1)));
      expect(container.HostConfig.Privileged).toBe(false);
      const [source, target, options = ''] = container.HostConfig.Binds?.[0]?.split(':') ?? [];
      expect({ source, target, readOnly: options.split(',').includes('ro') }).toEqual({ source: nodeModules, target: nodeModules, readOnly: true });
      expect((await call('GET', '/workloads/everything/export')).body).not.toContain(SECRET_VALUE);
    });

    it('stops the container with the workload, runs a fresh one on restart, and leaves none once deleted', async () => {
      const first = await runningContainer('everything');
      expect((await call('POST', '/workloads/everything/stop')).statusCode).toBe(202);
      await waitFor(async () => ((await statusOf('everything')) === 'stopped' ? true : undefined), 20_000, 'stopped');
      expect(await containersOf('everything')).toEqual([]);
      expect((await call('POST', '/workloads/everything/restart')).statusCode).toBe(202);
      const second = await runningContainer('everything');
      expect(second.Id).not.toBe(first.Id);
      expect((await call('DELETE', '/workloads/everything')).statusCode).toBe(202);
      await waitFor(async () => ((await call('GET', '/workloads/everything')).statusCode === 404 ? true : undefined), 20_000, 'deleted');
      expect(await containersOf('everything')).toEqual([]);
    });

    it('gives a shell container no network with network_isolation, no capabilities, a read-only volume it cannot write, and a writable one it can', async () => {
      const data = join(dir, 'data');
      const out = join(dir, 'out');
      await Promise.all([mkdir(data), mkdir(out)]);
      await writeFile(join(data, 'note.txt'), 'from the host');
      const script = [
        'cat /proc/net/dev > /out/net',
        'cat /data/note.txt > /out/note',
        'if touch /data/new 2>/dev/null; then echo writable; else echo read-only; fi > /out/data',
        'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status > /out/privileges',
        'echo "$GREETING" > /out/done',
        'exec sleep 600',
      ].join('; ');
      const created = await call('POST', '/workloads', {
        name: 'shell',
        image: images.busybox,
        cmd_arguments: ['/bin/sh', '-c', script],
        env_vars: { GREETING: 'written' },
        network_isolation: true,
        volumes: [`${data}:/data:ro`, `${out}:/out`],
      });
      expect(created.statusCode, created.body).toBe(201);
      expect((await call('GET', '/workloads/shell/proxy-logs')).body).toContain('nothing to pull');
      expect(await waitFor(() => readFile(join(out, 'done'), 'utf8'), 30_000, 'the script to finish')).toBe('written\n');
      const interfaces = (await readFile(join(out, 'net'), 'utf8')).split('\n').slice(2).map((line) => line.split(':')[0]?.trim()).filter((name) => name !== '');
      expect(interfaces).toEqual(['lo']);
      expect(await readFile(join(out, 'note'), 'utf8')).toBe('from the host');
      expect(await readFile(join(out, 'data'), 'utf8')).toBe('read-only\n');
      // root in the container, yet with no capability left and no way to gain one
      expect(await readFile(join(out, 'privileges'), 'utf8')).toMatch(/^CapEff:\s+0{16}\nNoNewPrivs:\s+1\n$/);
      const container = await inspect((await runningContainer('shell')).Id);
      expect(container.HostConfig.NetworkMode).toBe('none');
      expect(container.Config.Labels).toMatchObject({ 'dev.toolyard.workload': 'shell', 'dev.toolyard.image': images.busybox });
      expect((await call('DELETE', '/workloads/shell')).statusCode).toBe(202);
      await waitFor(async () => ((await call('GET', '/workloads/shell')).statusCode === 404 ? true : undefined), 20_000, 'shell deleted');
      expect(await containersOf('shell')).toEqual([]);
    });

    it('refuses a tag the registry does not have with a 400 that names it (Podman reports it inside a 200 pull stream)', async () => {
      const refused = await call('POST', '/workloads', { name: 'absent', image: `${registryHost}/toolyard/everything:9` });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<{ error: string }>().error).toMatch(/could not pull .*everything:9: .*manifest unknown/);
      expect(await containersOf('absent')).toEqual([]);
    });

    it('upgrades a catalog workload to the next tag: pulls it, then recreates the container from it', async () => {
      const catalogFile = join(dir, 'catalog.json');
      const publish = (tag: 1 | 2) =>
        writeFile(
          catalogFile,
          JSON.stringify({
            version: '1.0.0',
            last_updated: new Date().toISOString(),
            servers: {
              everything: {
                description: `server-everything, version ${String(tag)} of its image`,
                image: everything(tag),
                version: `${String(tag)}.0.0`,
                transport: 'stdio',
                args: [everythingEntry, 'stdio'],
                permissions: { read: [nodeModules] },
              },
            },
          }),
        );
      await publish(1);
      expect((await call('PUT', '/registry/default', { local_path: catalogFile })).statusCode).toBe(200);
      const created = await call('POST', '/workloads', { name: 'catalog', registry: 'default', server: 'everything' });
      expect(created.statusCode, created.body).toBe(201);
      const port = created.json<{ port: number }>().port;
      const before = await runningContainer('catalog');
      expect(JSON.parse(await callTool(port, 'get-env', {}))).toMatchObject({ IMAGE_VERSION: '1' });

      await publish(2);
      const upgraded = await call('POST', '/workloads/catalog/upgrade', {});
      expect(upgraded.statusCode, upgraded.body).toBe(200);
      expect(upgraded.json()).toMatchObject({ result: { status: 'upgraded', current_image: everything(1), candidate_image: everything(2) } });
      const after = await waitFor(async () => (await containersOf('catalog')).find((container) => container.State === 'running' && container.Id !== before.Id), 30_000, 'the new container');
      expect((await inspect(after.Id)).Image).toBe(await imageId(everything(2)));
      expect(JSON.parse(await callTool(port, 'get-env', {}))).toMatchObject({ IMAGE_VERSION: '2' });
      expect(await containersOf('catalog')).toHaveLength(1);
    });
  });
}

if (started.podman === undefined || local.registry === undefined) {
  const reason = started.reason ?? 'no reason given';
  it(`real engine: not available here (${reason})`, () => {
    expect(reason).toMatch(/podman|runc|docker-registry|root|Linux/);
  });
} else {
  realEngineTests(started.podman, local.registry);
}
