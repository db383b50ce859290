import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import { silentLogger } from '../../core/telemetry/logger.js';
import { runCommand } from '../packages/command.js';
import { createPackageRuntimes } from '../packages/index.js';
import { printingPackage, startFakeNpmRegistry, type FakeNpmRegistry } from '../packages/npm-registry-testing.js';
import type { CommandRunner } from '../packages/types.js';
import { runtimePaths, type RuntimePaths } from '../paths.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { createGroupStore } from './groups.js';
import { createWorkloadService, type WorkloadService } from './service.js';
import { createWorkloadStore, type WorkloadStore } from './store.js';
import { createFakeSupervisor, type FakeSupervisor } from './supervision-testing.js';

describe('workload service (fake supervisor, real npm against a fake registry)', () => {
  let registryRoot: string;
  let registry: FakeNpmRegistry;
  let npmEnv: Record<string, string>;
  let root: string;
  let paths: RuntimePaths;
  let store: WorkloadStore;
  let supervisor: FakeSupervisor;
  let service: WorkloadService;
  let localServer: string;
  let npmInstalls: number;

  beforeAll(async () => {
    registryRoot = await mkdtemp(join(tmpdir(), 'toolyard-registry-'));
    npmEnv = { PATH: process.env.PATH ?? '', HOME: join(registryRoot, 'home'), npm_config_cache: join(registryRoot, 'npm-cache') };
    registry = await startFakeNpmRegistry([printingPackage('@acme/weather-server', '1.0.0', 'index.js')], registryRoot, npmEnv);
  });
  afterAll(async () => {
    await registry.close();
    await rm(registryRoot, { recursive: true, force: true });
  });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolyard-workloads-'));
    const home = join(root, 'home');
    paths = runtimePaths({ XDG_STATE_HOME: join(home, 'state'), XDG_DATA_HOME: join(home, 'data'), XDG_CACHE_HOME: join(home, 'cache') }, home);
    store = createWorkloadStore(paths);
    supervisor = createFakeSupervisor(store, systemClock);
    localServer = join(root, 'servers', 'memory-server');
    await mkdir(localServer, { recursive: true });
    await writeFile(join(localServer, 'package.json'), JSON.stringify({ name: 'memory-server', bin: { 'memory-server': 'server.js' } }));
    npmInstalls = 0;
    const run: CommandRunner = (command, args, options) => {
      if (args[0] === 'install') npmInstalls++;
      return runCommand(command, args, options);
    };
    service = createWorkloadService({
      store,
      groups: createGroupStore(paths),
      supervisor: supervisor.control,
      packages: createPackageRuntimes({
        cacheDir: paths.cache,
        // no engine listens there: OCI images are refused without looking for one on this machine
        env: { ...npmEnv, HOME: home, DOCKER_HOST: `unix://${join(root, 'no-engine.sock')}` },
        cwd: root,
        npm: { registry: registry.url },
        run,
      }),
      secrets: createEnvironmentSecretReader({ TOOLYARD_SECRET_API_KEY: 'sk-very-secret' }),
      paths,
      clock: systemClock,
      logger: silentLogger,
    });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates an npx registry workload: installs once, runs node on the bin, and a second create reuses the cache under a new name', async () => {
    const first = await service.create({ image: 'npx://@acme/weather-server@1.0.0', env_vars: { UNITS: 'metric' } });
    expect(first.name).toBe('weather-server');
    expect(first.port).toBeGreaterThanOrEqual(10_000);
    const exported = await service.exportConfig('weather-server');
    expect(exported.schema_version).toBe('v1.0.0');
    expect(exported.command).toEqual({
      command: process.execPath,
      args: [join(paths.cache, 'npm', '@acme_weather-server@1.0.0', 'node_modules', '@acme', 'weather-server', 'index.js')],
      cwd: join(paths.data, 'workdirs', 'weather-server'),
      env: {},
    });
    await access(join(paths.data, 'workdirs', 'weather-server'));

    const second = await service.create({ image: 'npx://@acme/weather-server@1.0.0' });
    expect(second.name).toBe('weather-server-2');
    expect(second.port).not.toBe(first.port);
    expect(npmInstalls).toBe(1);
    expect(supervisor.starts).toEqual(['weather-server', 'weather-server-2']);
  });

  it('lists a summary with every field, and details echo the body with name, group and port', async () => {
    const { port } = await service.create({ image: `npx://${localServer}`, tools: ['read'], labels: { team: 'a' }, cmd_arguments: ['--fast'] });
    const [summary] = await service.list({});
    expect(summary).toEqual({
      name: 'memory-server',
      package: `npx://${localServer}`,
      url: `http://127.0.0.1:${String(port)}/mcp`,
      port,
      transport_type: 'stdio',
      proxy_mode: 'streamable-http',
      status: 'running',
      status_context: '',
      created_at: expect.any(String) as string,
      started_at: expect.any(String) as string,
      labels: { team: 'a' },
      group: 'default',
      tools: ['read'],
      remote: false,
    });
    expect((await service.exportConfig('memory-server')).command?.args).toEqual([join(localServer, 'server.js'), '--fast']);
    expect(await service.get('memory-server')).toMatchObject({ name: 'memory-server', group: 'default', proxy_port: port, image: `npx://${localServer}` });
  });

  it('refuses a taken name with 409, a busy port with 400, and says why an OCI image or a registry reference cannot run', async () => {
    await service.create({ name: 'mem', image: `npx://${localServer}` });
    await expect(service.create({ name: 'mem', image: `npx://${localServer}` })).rejects.toThrow(ConflictError);
    await expect(service.create({ name: 'upgrade-check', image: `npx://${localServer}` })).rejects.toThrow('is another route');
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const address = busy.address();
    const busyPort = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      await expect(service.create({ image: `npx://${localServer}`, proxy_port: busyPort })).rejects.toThrow(`port ${String(busyPort)} is in use`);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
    await expect(service.create({ image: 'ghcr.io/acme/server:1.0' })).rejects.toThrow(/OCI images run in a container engine, and none answers .*start Docker or Podman/);
    await expect(service.create({ registry: 'default', server: 'io.github.acme/weather' })).rejects.toThrow('registry references need a configured registry');
    expect((await service.list({ all: true })).map((summary) => summary.name)).toEqual(['mem']);
  });

  it('names missing secret keys without revealing present values, and keeps only references', async () => {
    const error = await service
      .create({ image: `npx://${localServer}`, secrets: [{ name: 'api-key', target: 'API_KEY' }, { name: 'db-password', target: 'DB' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe('secrets not found: db-password');
    await service.create({ name: 'with-secret', image: `npx://${localServer}`, secrets: [{ name: 'api-key', target: 'API_KEY' }] });
    const saved = await readFile(join(paths.state, 'runconfigs', 'with-secret.json'), 'utf8');
    expect(saved).toContain('"api-key"');
    expect(saved).not.toContain('sk-very-secret');
  });

  it('keeps a workload whose start failed, with status error and the reason, and still answers created', async () => {
    supervisor.failNextStart.set('memory-server', 'server exited with code 1: Cannot find module');
    const created = await service.create({ image: `npx://${localServer}` });
    expect(created.name).toBe('memory-server');
    expect(await service.status('memory-server')).toEqual({ status: 'error', status_context: 'server exited with code 1: Cannot find module' });
    expect(await service.list({})).toEqual([]);
  });

  it('never reports running when the supervisor or the server is gone', async () => {
    await service.create({ name: 'a', image: `npx://${localServer}` });
    await service.create({ name: 'b', image: `npx://${localServer}` });
    supervisor.killSupervisor('a');
    supervisor.killServer('b');
    expect(await service.status('a')).toEqual({ status: 'error', status_context: 'supervisor is not running' });
    expect((await service.status('b')).status).toBe('unhealthy');
    expect(await service.list({})).toEqual([]);
    expect((await service.list({ all: true })).map((summary) => summary.status)).toEqual(['error', 'unhealthy']);
  });

  it('updates keeping the port and restarts a running workload; a remote workload accepts only an inert runtime_config echo', async () => {
    const { port } = await service.create({ name: 'mem', image: `npx://${localServer}` });
    const details = await service.get('mem');
    expect(await service.update('mem', { ...details, env_vars: { MODE: 'fast' } })).toEqual({ name: 'mem', port });
    expect((await service.exportConfig('mem')).env_vars).toEqual({ MODE: 'fast' });
    expect(supervisor.stops).toEqual(['mem']);
    expect(supervisor.starts).toEqual(['mem', 'mem']);
    expect((await service.status('mem')).status).toBe('running');

    await service.create({ name: 'remote', url: 'https://mcp.example.com/sse' });
    const remote = await service.get('remote');
    expect(remote).toMatchObject({ transport: 'sse', proxy_mode: 'sse' });
    await expect(service.update('remote', { ...remote, runtime_config: { runtime_env: { A: '1' } } })).rejects.toThrow(InvalidInputError);
    await expect(service.update('remote', { ...remote, name: 'renamed' })).rejects.toThrow(/cannot be renamed/);
    await expect(service.update('missing', remote)).rejects.toThrow(NotFoundError);
  });

  it('stops many: unknown names fail before anything is done, stopping is recorded at once', async () => {
    await service.create({ name: 'a', image: `npx://${localServer}` });
    await expect(service.stop(['a', 'nope'])).rejects.toThrow('workloads not found: nope');
    expect((await service.status('a')).status).toBe('running');

    let release = (): void => undefined;
    supervisor.stopGate = new Promise((resolve) => (release = resolve));
    const accepted = await service.stop(['a']);
    expect((await service.status('a')).status).toBe('stopping');
    release();
    await accepted.done;
    expect(await service.status('a')).toEqual({ status: 'stopped', status_context: '' });

    await (await service.restart(['a'])).done;
    expect((await service.status('a')).status).toBe('running');
  });

  it('removes a workload: removing at once, then its files and working directory are gone', async () => {
    await service.create({ name: 'gone', image: `npx://${localServer}` });
    await mkdir(join(paths.data, 'logs'), { recursive: true });
    await writeFile(store.logPath('gone', 'server'), 'hello\n');
    let release = (): void => undefined;
    supervisor.stopGate = new Promise((resolve) => (release = resolve));
    const accepted = await service.remove(['gone']);
    expect((await service.status('gone')).status).toBe('removing');
    release();
    await accepted.done;
    expect(supervisor.stops).toEqual(['gone']);
    await expect(service.get('gone')).rejects.toThrow(NotFoundError);
    await expect(access(store.logPath('gone', 'server'))).rejects.toThrow(/ENOENT/);
    await expect(access(join(paths.data, 'workdirs', 'gone'))).rejects.toThrow(/ENOENT/);
  });

  it('serves the last 1000 lines of a log, and an empty string before there is one', async () => {
    await service.create({ name: 'chatty', image: `npx://${localServer}` });
    expect(await service.logs('chatty', 'proxy')).toBe('');
    await mkdir(join(paths.data, 'logs'), { recursive: true });
    await writeFile(store.logPath('chatty', 'server'), Array.from({ length: 1500 }, (_, i) => `line ${String(i + 1)}\n`).join(''));
    const lines = (await service.logs('chatty', 'server')).trimEnd().split('\n');
    expect(lines).toHaveLength(1000);
    expect([lines[0], lines.at(-1)]).toEqual(['line 501', 'line 1500']);
    await expect(service.logs('missing', 'server')).rejects.toThrow(NotFoundError);
  });

  it('lists by group: unknown groups are 404 and each group sees only its workloads', async () => {
    await createGroupStore(paths).write({ name: 'research', registered_clients: [] });
    await service.create({ name: 'in-default', image: `npx://${localServer}` });
    await service.create({ name: 'in-research', image: `npx://${localServer}`, group: 'research' });
    expect((await service.list({ group: 'research' })).map((summary) => summary.name)).toEqual(['in-research']);
    expect(await service.namesInGroup('default')).toEqual(['in-default']);
    await expect(service.list({ group: 'nope' })).rejects.toThrow(NotFoundError);
    await expect(service.create({ image: `npx://${localServer}`, group: 'nope' })).rejects.toThrow('group nope does not exist');
  });
});
