import { readFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { connect as connectTcp, createServer, type Server } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.js';
import { textOf } from '../proxy/stdio-proxy-testing.js';
import { createEnvironmentSecretReader } from '../secrets/environment.js';
import { createProcessIdentities } from './process-identity.js';
import type { RunConfig, StatusRecord } from './schemas.js';
import type { WorkloadStore } from './store.js';
import { runSupervisor, type SupervisorOptions } from './supervisor.js';
import { everythingEntry, freePort, tempRuntime, testRunConfig, waitFor, type TempRuntime } from './supervisor-testing.js';

const identities = createProcessIdentities();
const fastBackoff = { initialMs: 200, maxMs: 400, maxTries: 10, healthyMs: 30_000 };

function portAnswers(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });
}

describe('runSupervisor', () => {
  let runtime: TempRuntime;
  let store: WorkloadStore;
  /** Every status the supervisor wrote, in order. */
  let history: StatusRecord[];
  const running: { stop: AbortController; done: Promise<number> }[] = [];
  const clients: Client[] = [];
  const servers: Server[] = [];

  beforeEach(async () => {
    runtime = await tempRuntime();
    history = [];
    store = {
      ...runtime.store,
      writeStatus: async (name, record) => {
        history.push(record);
        await runtime.store.writeStatus(name, record);
      },
    };
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const run of running.splice(0)) {
      run.stop.abort();
      await run.done;
    }
    for (const server of servers.splice(0)) server.close();
    await runtime.cleanup();
  });

  const supervise = async (config: RunConfig, options: Partial<SupervisorOptions> = {}): Promise<Promise<number>> => {
    await runtime.store.writeConfig(config);
    const stop = new AbortController();
    const done = runSupervisor({
      name: config.name,
      store,
      secrets: createEnvironmentSecretReader({}),
      clock: systemClock,
      env: runtime.env,
      stop: stop.signal,
      backoff: fastBackoff,
      startupGraceMs: 100,
      ...options,
    });
    running.push({ stop, done });
    return done;
  };
  const stopAll = async (): Promise<number[]> => {
    const codes: number[] = [];
    for (const run of running.splice(0)) {
      run.stop.abort();
      codes.push(await run.done);
    }
    return codes;
  };
  const statusIs = (name: string, status: StatusRecord['status']) => async (): Promise<StatusRecord | undefined> => {
    const record = await store.readStatus(name);
    return record?.status === status ? record : undefined;
  };
  const connect = async (port: number): Promise<Client> => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${String(port)}/mcp`)));
    clients.push(client);
    return client;
  };
  const echo = async (client: Client, message: string): Promise<string> =>
    textOf(await client.callTool({ name: 'echo', arguments: { message } }));

  it('serves a stdio server at the workload port and restarts it after a crash, keeping client sessions', async () => {
    const port = await freePort();
    void supervise(testRunConfig('everything', port));
    const first = await waitFor(statusIs('everything', 'running'), 'running');
    expect(first.supervisor?.pid).toBe(process.pid);
    expect(await identities.isAlive(first.server)).toBe(true);

    const client = await connect(port);
    expect(await echo(client, 'before')).toContain('before');

    process.kill(first.server?.pid ?? 0, 'SIGKILL');
    const again = await waitFor(
      async () => {
        const record = await statusIs('everything', 'running')();
        return record !== undefined && record.server?.pid !== first.server?.pid ? record : undefined;
      },
      'running again',
    );
    const unhealthy = history.find((record) => record.status === 'unhealthy');
    expect(unhealthy?.status_context).toMatch(/killed by SIGKILL; restart 1 of 10/);
    expect(again.restarts).toBe(1);
    expect(await echo(client, 'after')).toContain('after');

    expect(await stopAll()).toEqual([0]);
    const last = await store.readStatus('everything');
    expect(history.map((record) => record.status).slice(-2)).toEqual(['stopping', 'stopped']);
    expect(last?.status).toBe('stopped');
    expect(await identities.isAlive(again.server)).toBe(false);
    expect(await readFile(store.logPath('everything', 'server'), 'utf8')).toContain('Starting default (STDIO) server');
    expect(await readFile(store.logPath('everything', 'proxy'), 'utf8')).toMatch(/^\S+Z status running$/m);
  });

  it('gives the server its env vars and secrets but nothing else of the supervisor environment, and logs no secret value', async () => {
    const port = await freePort();
    const config = testRunConfig('env', port, {
      env_vars: { GREETING: 'hello' },
      secrets: [{ name: 'api-key', target: 'API_KEY' }],
      tools_filter: ['get-env', 'echo'],
    });
    void supervise(config, {
      secrets: createEnvironmentSecretReader({ TOOLYARD_SECRET_API_KEY: 'v3ry-s3cret' }),
      env: { ...runtime.env, UNRELATED_PARENT_VARIABLE: 'leak' },
    });
    await waitFor(statusIs('env', 'running'), 'running');
    const client = await connect(port);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'get-env']);
    const env = JSON.parse(textOf(await client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
    expect(env).toMatchObject({ GREETING: 'hello', API_KEY: 'v3ry-s3cret', PATH: process.env.PATH });
    expect(env).not.toHaveProperty('UNRELATED_PARENT_VARIABLE');

    await stopAll();
    expect(await readFile(store.logPath('env', 'proxy'), 'utf8')).not.toContain('v3ry-s3cret');
    expect(JSON.stringify(history)).not.toContain('v3ry-s3cret');
  });

  it('records an error naming a secret that is not set, without starting anything', async () => {
    const config = testRunConfig('nosecret', await freePort(), { secrets: [{ name: 'github-token', target: 'GITHUB_TOKEN' }] });
    expect(await supervise(config)).toBe(1);
    const record = await store.readStatus('nosecret');
    expect(record?.status).toBe('error');
    expect(record?.status_context).toContain('"github-token"');
    expect(record?.server).toBeUndefined();
  });

  it('fails at once when the server exits while starting', async () => {
    const config = testRunConfig('badstart', await freePort(), {
      command: { command: process.execPath, args: ['-e', 'process.exit(4)'], cwd: '', env: {} },
    });
    expect(await supervise(config, { startupGraceMs: 5_000 })).toBe(1);
    const record = await store.readStatus('badstart');
    expect(record?.status).toBe('error');
    expect(record?.status_context).toContain('exited with code 4 while starting');
  });

  it('gives up with an error after the allowed number of restarts', async () => {
    const config = testRunConfig('crashy', await freePort(), {
      command: { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(3), 150)'], cwd: '', env: {} },
    });
    const code = await supervise(config, { backoff: { initialMs: 20, maxMs: 40, maxTries: 2, healthyMs: 30_000 }, startupGraceMs: 50 });
    expect(code).toBe(1);
    const record = await store.readStatus('crashy');
    expect(record?.status).toBe('error');
    expect(record?.status_context).toBe('server exited with code 3; gave up after 2 restarts');
    expect(record?.restarts).toBe(2);
    const unhealthy = new Set(history.filter((entry) => entry.status === 'unhealthy').map((entry) => entry.status_context));
    expect([...unhealthy]).toEqual([
      'server exited with code 3; restart 1 of 2 in 20ms',
      'server exited with code 3; restart 2 of 2 in 40ms',
    ]);
  });

  it('runs a streamable-http server itself on the target port and reverse-proxies it', async () => {
    const [port, targetPort] = [await freePort(), await freePort()];
    const config = testRunConfig('http', port, {
      transport: 'streamable-http',
      target_port: targetPort,
      command: { command: process.execPath, args: [everythingEntry, 'streamableHttp'], cwd: '', env: {} },
    });
    void supervise(config);
    const record = await waitFor(statusIs('http', 'running'), 'running');
    expect(await identities.isAlive(record.server)).toBe(true);
    expect(await echo(await connect(port), 'through')).toContain('through');

    expect(await stopAll()).toEqual([0]);
    expect(await identities.isAlive(record.server)).toBe(false);
  });

  it('proxies a remote server without running any process', async () => {
    const [port, upstreamPort] = [await freePort(), await freePort()];
    const upstream = spawn(process.execPath, [everythingEntry, 'streamableHttp'], {
      env: { ...process.env, PORT: String(upstreamPort) },
      stdio: 'ignore',
    });
    try {
      await waitFor(() => portAnswers(upstreamPort), 'the upstream server');
      void supervise(testRunConfig('remote', port, { remote_url: `http://127.0.0.1:${String(upstreamPort)}/mcp`, transport: 'streamable-http' }));
      const record = await waitFor(statusIs('remote', 'running'), 'running');
      expect(record.server).toBeUndefined();
      expect(await echo(await connect(port), 'far away')).toContain('far away');
    } finally {
      upstream.kill('SIGKILL');
    }
  });

  it('records an error when the workload port is taken', async () => {
    const busy = createServer();
    servers.push(busy);
    const port = await freePort();
    await new Promise<void>((resolve) => busy.listen(port, '127.0.0.1', resolve));
    expect(await supervise(testRunConfig('busy', port))).toBe(1);
    const record = await store.readStatus('busy');
    expect(record?.status).toBe('error');
    expect(record?.status_context).toContain(`could not start the proxy on 127.0.0.1:${String(port)}`);
  });
});
