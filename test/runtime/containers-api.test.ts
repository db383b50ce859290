import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineClient, type ContainerCreateBody as CreateBody } from '../../src/runtime/containers/engine.js';
import { runtimeIdOf } from '../../src/runtime/packages/index.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { everythingEntry } from '../../src/runtime/workloads/supervisor-testing.js';
import { waitFor } from '../helpers/cli.js';
import { startFakeDockerEngine, type FakeDockerEngine } from '../helpers/fake-docker-engine.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const SECRET_VALUE = 'never-show-this-value-7c1d0e9a';
const IMAGE = 'registry.example/acme/everything:1.0.0';


async function callTool(port: number, name: string, args: Record<string, unknown>): Promise<string> {
  const client = new Client({ name: 'containers-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${String(port)}/mcp`)));
  try {
    const result = await client.callTool({ name, arguments: args });
    return (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
  } finally {
    await client.close();
  }
}

describe('image workloads run as containers of a Docker Engine API (a fake engine)', () => {
  let dir: string;
  let fake: FakeDockerEngine;
  let runtime: TestRuntime;
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const statusOf = async (name: string) => (await call('GET', `/workloads/${name}/status`)).json<{ status: string }>().status;
  const createdFor = (workload: string): CreateBody[] =>
    fake.requests
      .filter((request) => request.path === '/containers/create' && (request.body as CreateBody).Labels['dev.toolyard.workload'] === workload)
      .map((request) => request.body as CreateBody);
  const containersOf = (workload: string) => fake.containers().filter((container) => container.body.Labels?.['dev.toolyard.workload'] === workload);
  // a stdio server counts as started once its runner lives; the container follows a moment later
  const createdOnce = (workload: string) => waitFor(() => Promise.resolve(createdFor(workload)[0]), 20_000, `${workload}'s container`);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-containers-'));
    fake = await startFakeDockerEngine({
      socketPath: join(dir, 'engine.sock'),
      registry: {
        [IMAGE]: { entrypoint: [process.execPath, everythingEntry], cmd: ['stdio'] },
        'registry.example/acme/broken:1': { entrypoint: [process.execPath], pullError: 'received unexpected HTTP status: 502 Bad Gateway' },
      },
    });
    runtime = await testRuntime({ supervisor: 'real', env: { DOCKER_HOST: `unix://${fake.socketPath}`, TOOLYARD_SECRET_API_KEY: SECRET_VALUE } });
  });
  afterAll(async () => {
    await runtime.close();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a stdio image: pulls it into the proxy log, attaches its stdio, and a tool call through the proxy reaches it with its env and secrets only', async () => {
    const data = join(dir, 'data');
    await mkdir(data);
    const created = await call('POST', '/workloads', {
      name: 'everything',
      image: IMAGE,
      env_vars: { GREETING: 'hello' },
      secrets: [{ name: 'api-key', target: 'API_KEY' }],
      volumes: [`${data}:/data:ro`],
    });
    expect(created.statusCode).toBe(201);
    expect(await statusOf('everything')).toBe('running');
    const port = created.json<{ port: number }>().port;

    const env = JSON.parse(await callTool(port, 'get-env', {})) as Record<string, string>;
    expect(env).toMatchObject({ GREETING: 'hello', API_KEY: SECRET_VALUE });
    expect(env.XDG_STATE_HOME).toBeUndefined();
    expect(await callTool(port, 'echo', { message: 'through a container' })).toContain('through a container');

    const body = await createdOnce('everything');
    expect(body).toMatchObject({ OpenStdin: true, HostConfig: { Binds: [`${data}:/data:ro`], Privileged: false, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] } });
    expect(body.Image).toMatch(/^sha256:/);
    expect(body.Labels['dev.toolyard.image']).toBe(IMAGE);
    expect(body.HostConfig.NetworkMode).toBeUndefined();
    expect((await call('GET', '/workloads/everything/proxy-logs')).body).toContain('Pulling from registry.example/acme/everything');
    const exported = await call('GET', '/workloads/everything/export');
    expect(exported.json()).toMatchObject({ volumes: [`${data}:/data:ro`], isolate_network: false });
    expect(exported.body).not.toContain(SECRET_VALUE);
    expect(containersOf('everything').map((container) => container.state)).toEqual(['running']);
  });

  it('stops the container with the workload, starts a fresh one on restart, and leaves none once deleted', async () => {
    expect((await call('POST', '/workloads/everything/stop')).statusCode).toBe(202);
    await waitFor(async () => ((await statusOf('everything')) === 'stopped' ? true : undefined), 20_000, 'stopped');
    expect(containersOf('everything')).toEqual([]);
    expect((await call('POST', '/workloads/everything/restart')).statusCode).toBe(202);
    await waitFor(async () => ((await statusOf('everything')) === 'running' ? true : undefined), 20_000, 'running');
    await waitFor(() => Promise.resolve(containersOf('everything').length === 1 ? true : undefined), 20_000, 'a fresh container');
    // what a runner killed before it could clean up would leave behind
    const runtimeId = runtimeIdOf(runtimePaths(runtime.env).cache);
    const leftover = { ...(await createdOnce('everything')), Labels: { 'dev.toolyard.workload': 'everything', 'dev.toolyard.runtime': runtimeId } };
    await createEngineClient({ socketPath: fake.socketPath }).createContainer('leftover', leftover);
    expect((await call('DELETE', '/workloads/everything')).statusCode).toBe(202);
    await waitFor(async () => ((await call('GET', '/workloads/everything')).statusCode === 404 ? true : undefined), 20_000, 'deleted');
    expect(containersOf('everything')).toEqual([]);
  });

  it('runs an HTTP image with its target port published on 127.0.0.1 only, behind the same proxy', async () => {
    const created = await call('POST', '/workloads', { name: 'web', image: IMAGE, transport: 'streamable-http', cmd_arguments: ['streamableHttp'] });
    expect(created.statusCode).toBe(201);
    expect(await statusOf('web')).toBe('running');
    expect(await callTool(created.json<{ port: number }>().port, 'echo', { message: 'over http' })).toContain('over http');
    const targetPort = (await call('GET', '/workloads/web')).json<{ target_port: number }>().target_port;
    const [body] = createdFor('web');
    const port = `${String(targetPort)}/tcp`;
    expect(body).toMatchObject({ Cmd: ['streamableHttp'], OpenStdin: false, ExposedPorts: { [port]: {} }, HostConfig: { PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: String(targetPort) }] } } });
    expect(body?.Env).toEqual(expect.arrayContaining([`PORT=${String(targetPort)}`, 'MCP_HOST=0.0.0.0']));
    expect((await call('DELETE', '/workloads/web')).statusCode).toBe(202);
    await waitFor(() => Promise.resolve(containersOf('web').length === 0 ? true : undefined), 20_000, 'web removed');
  });

  it('isolates the network and honours a permission profile file: read-only and writable mounts, privileged only when it says so', async () => {
    const readable = join(dir, 'readable');
    const writable = join(dir, 'writable');
    await Promise.all([mkdir(readable), mkdir(writable)]);
    const profile = join(dir, 'profile.json');
    await writeFile(profile, JSON.stringify({ read: [readable], write: [`${writable}:/out`], privileged: true }));
    const created = await call('POST', '/workloads', { name: 'isolated', image: IMAGE, network_isolation: true, permission_profile: profile });
    expect(created.statusCode).toBe(201);
    expect((await createdOnce('isolated')).HostConfig).toEqual({
      Binds: [`${readable}:${readable}:ro`, `${writable}:/out:rw`],
      NetworkMode: 'none',
      Privileged: true,
      CapDrop: [],
      SecurityOpt: [],
    });
    expect((await call('GET', '/workloads/isolated/export')).json()).toMatchObject({ isolate_network: true, permission_profile_name_or_path: profile });
    expect((await call('DELETE', '/workloads/isolated')).statusCode).toBe(202);
    await waitFor(async () => ((await call('GET', '/workloads/isolated')).statusCode === 404 ? true : undefined), 20_000, 'isolated deleted');
  });

  it('refuses what a container cannot honour and what the engine refuses with a 4xx that says what to do', async () => {
    const refused = async (body: object, message: RegExp) => {
      const answer = await call('POST', '/workloads', body);
      expect(answer.statusCode).toBe(400);
      expect(answer.json<{ error: string }>().error).toMatch(message);
    };
    await refused({ image: IMAGE, transport: 'sse', network_isolation: true }, /network_isolation runs the container without a network, so the port of a sse server cannot be published/);
    await refused({ image: IMAGE, volumes: ['relative/path:/data'] }, /neither an absolute host path nor a volume name/);
    await refused({ image: IMAGE, volumes: [`${join(dir, 'absent')}:/data`] }, /absent does not exist on this machine/);
    await refused({ image: IMAGE, permission_profile: 'strict' }, /must be none, network, or the absolute path of a JSON profile file/);
    await refused({ image: IMAGE, permission_profile: 'network', network_isolation: true }, /lets it reach any host; leave network_isolation out/);
    await refused({ image: 'registry.example/acme/absent:1' }, /could not pull registry.example\/acme\/absent:1: pull access denied/);
    const broken = await call('POST', '/workloads', { image: 'registry.example/acme/broken:1' });
    expect(broken.statusCode).toBe(503);
    expect(broken.json<{ error: string }>().error).toMatch(/could not pull registry.example\/acme\/broken:1: received unexpected HTTP status: 502/);
    await refused({ image: 'npx://server', network_isolation: true }, /network_isolation needs a container engine: npx:\/\/, uvx:\/\/ and go:\/\/ servers run as local processes/);
    expect((await call('GET', '/workloads?all=true')).json<{ workloads: unknown[] }>().workloads).toEqual([]);
  });
});

describe('image workloads without a container engine', () => {
  it('are a 400 naming the engine to start, or what is wrong with DOCKER_HOST', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolyard-no-engine-'));
    const missing = await testRuntime({ supervisor: 'fake', env: { DOCKER_HOST: `unix://${join(dir, 'absent.sock')}` } });
    const tcp = await testRuntime({ supervisor: 'fake', env: { DOCKER_HOST: 'tcp://127.0.0.1:2375' } });
    try {
      const none = await missing.app.http.inject({ method: 'POST', url: `${API}/workloads`, payload: { image: IMAGE } });
      expect(none.statusCode).toBe(400);
      expect(none.json<{ error: string }>().error).toMatch(/none answers \(DOCKER_HOST at .*absent\.sock.*\): start Docker or Podman \(podman system service\) or set DOCKER_HOST/);
      const remote = await tcp.app.http.inject({ method: 'POST', url: `${API}/workloads`, payload: { image: IMAGE } });
      expect(remote.statusCode).toBe(400);
      expect(remote.json<{ error: string }>().error).toMatch(/DOCKER_HOST is tcp:\/\/127.0.0.1:2375: only unix:\/\/ sockets are supported/);
    } finally {
      await Promise.all([missing.close(), tcp.close()]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
