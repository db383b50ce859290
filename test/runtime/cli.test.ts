import { appendFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRuntimeApp } from '../../src/runtime/app.js';
import { runtimePaths } from '../../src/runtime/paths.js';
import { createRuntimeServices } from '../../src/runtime/services.js';
import { freePort, runCli, spawnCli, waitFor } from '../helpers/cli.js';
import { EVERYTHING, runtimeEnv } from './fixtures.js';

describe('toolyard run, list, export, logs, stop, rm', () => {
  let env: Record<string, string>;
  let dir: string;
  const cli = (...args: string[]) => runCli(args, env);
  const services = () => createRuntimeServices({ paths: runtimePaths(env), env, logger: silentLogger, cwd: dir });

  beforeAll(async () => {
    ({ env, dir } = await runtimeEnv());
  });
  afterAll(async () => {
    // the supervisors are detached: remove whatever a failed test left running
    const { workloads } = services();
    const names = (await workloads.list({ all: true })).map((workload) => workload.name);
    if (names.length > 0) await (await workloads.remove(names)).done;
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a workload and prints its name and the URL clients use', async () => {
    const { code, output } = await cli('run', EVERYTHING, '--name', 'cli-one', '--env', 'MODE=cli', '--tools', 'echo,add', '--', 'stdio');
    expect(output).toMatch(/^cli-one http:\/\/127\.0\.0\.1:\d+\/mcp\n$/);
    expect(code).toBe(0);
  });

  it('lists it as a table and as JSON, and the API sees it', async () => {
    const table = await cli('list');
    expect(table.code).toBe(0);
    const [header, row] = table.output.trim().split('\n');
    expect(header).toMatch(/^NAME\s+PACKAGE\s+STATUS\s+URL\s+PORT\s+GROUP\s+CREATED$/);
    expect(row).toMatch(/^cli-one\s+npx:\/\/\S+\s+running\s+http:\/\/127\.0\.0\.1:\d+\/mcp\s+\d+\s+default\s+\S+$/);
    const json = JSON.parse((await cli('list', '--format', 'json')).output) as unknown;
    expect(json).toEqual([expect.objectContaining({ name: 'cli-one', status: 'running', tools: ['echo', 'add'] })]);

    const app = await buildRuntimeApp({ paths: runtimePaths(env), env, logger: silentLogger, cwd: dir });
    try {
      const listed = await app.http.inject({ url: '/api/v1beta/workloads' });
      expect(listed.json()).toEqual({ workloads: [expect.objectContaining({ name: 'cli-one', status: 'running' })] });
    } finally {
      await app.close();
    }
  });

  it('exports the run configuration as JSON', async () => {
    const { code, output } = await cli('export', 'cli-one');
    expect(code).toBe(0);
    expect(JSON.parse(output)).toMatchObject({ name: 'cli-one', image: EVERYTHING, env_vars: { MODE: 'cli' }, tools_filter: ['echo', 'add'], schema_version: expect.any(String) as unknown });
  });

  it('follows a log until Ctrl-C', async () => {
    const follower = spawnCli(['logs', 'cli-one', '--proxy', '--follow'], env);
    await waitFor(() => Promise.resolve(follower.output().includes('cli-one') ? true : undefined), 20_000, 'the existing lines');
    await appendFile(join(env.XDG_DATA_HOME ?? '', 'toolyard', 'logs', 'cli-one.proxy.log'), 'a line written later\n');
    await waitFor(() => Promise.resolve(follower.output().includes('a line written later') ? true : undefined), 10_000, 'the new line');
    const exited = new Promise<number | null>((resolve) => follower.on('exit', resolve));
    follower.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('stops it, waiting until it is stopped', async () => {
    const stopped = await cli('stop', 'cli-one');
    expect(stopped).toEqual({ code: 0, output: 'stopped cli-one\n' });
    expect((await cli('list')).output).toContain('no running workloads');
    expect(await services().workloads.list({ all: true })).toEqual([expect.objectContaining({ name: 'cli-one', status: 'stopped' })]);
  });

  it('removes it', async () => {
    expect(await cli('rm', 'cli-one')).toEqual({ code: 0, output: 'removed cli-one\n' });
    expect(await services().workloads.list({ all: true })).toEqual([]);
  });

  it('prints errors as toolyard: <message> with exit code 1', async () => {
    const [unknown, registryName, badEnv] = await Promise.all([
      cli('stop', 'nope'),
      cli('run', 'io.github.example/server'),
      cli('run', EVERYTHING, '--env', 'NOT VALID'),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/^toolyard: .*nope.*\n$/);
    expect(registryName.code).toBe(1);
    expect(registryName.output).toMatch(/^toolyard: .*registry/);
    expect(badEnv.code).toBe(1);
    expect(badEnv.output).toMatch(/^toolyard: --env: "NOT VALID" must be KEY=VALUE/);
  });

  it('serves the API on every interface with --allow-remote and a token file, asking every caller for the token', async () => {
    const token = 'Zq8Lx3Vn7Rt2Wm5Kp9Hs4Jd6Gf1Cb0Ya';
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${token}\n`);
    const port = await freePort();
    const server = spawnCli(['runtime', 'serve', '--address', `0.0.0.0:${String(port)}`, '--allow-remote', '--token-file', tokenFile], env);
    try {
      const url = `http://127.0.0.1:${String(port)}`;
      expect(await waitFor(async () => (await fetch(`${url}/health`)).status, 20_000, 'the API')).toBe(200);
      expect((await fetch(`${url}/api/v1beta/groups`)).status).toBe(401);
      const authorized = await fetch(`${url}/api/v1beta/groups`, { headers: { authorization: `Bearer ${token}` } });
      expect(await authorized.json()).toEqual({ groups: [{ name: 'default', registered_clients: [] }] });
    } finally {
      const exited = new Promise((resolve) => server.on('exit', resolve));
      server.kill('SIGINT');
      await exited;
    }
  });

  it('checks every flag of runtime serve before it serves, naming the flag it refuses', async () => {
    const shortToken = join(dir, 'short-token');
    await writeFile(shortToken, 'too-short\n');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const busyPort = (busy.address() as AddressInfo).port;
    try {
      const [short, missing, address, taken] = await Promise.all([
        cli('runtime', 'serve', '--address', '127.0.0.1:0', '--token-file', shortToken),
        cli('runtime', 'serve', '--address', '127.0.0.1:0', '--token-file', join(dir, 'no-such-token')),
        cli('runtime', 'serve', '--address', '127.0.0.1:99999'),
        cli('runtime', 'serve', '--address', `127.0.0.1:${String(busyPort)}`),
      ]);
      expect(short).toEqual({ code: 1, output: `toolyard: --token-file: the token in ${shortToken} must be one word of at least 32 characters\n` });
      expect(missing).toEqual({ code: 1, output: `toolyard: --token-file: cannot read ${join(dir, 'no-such-token')} (ENOENT)\n` });
      expect(address).toEqual({ code: 1, output: 'toolyard: --address: "127.0.0.1:99999" must be HOST:PORT (example: 127.0.0.1:8180)\n' });
      expect(taken).toEqual({ code: 1, output: `toolyard: --address: cannot listen on 127.0.0.1:${String(busyPort)} (EADDRINUSE)\n` });
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it('names the flag of a workload or group name that cannot be', async () => {
    expect(await cli('run', EVERYTHING, '--name', 'x'.repeat(80))).toEqual({ code: 1, output: expect.stringMatching(/^toolyard: --name "x+…" is not a valid name: /) as unknown });
    expect((await cli('run', EVERYTHING, '--group', '../up')).output).toMatch(/^toolyard: --group "\.\.\/up" is not a valid name/);
    expect((await cli('stop', 'x'.repeat(300))).output).toMatch(/^toolyard: names\[0\] "x+…" is not a valid name/);
  });

  it('refuses to serve the API on a non-loopback address without --allow-remote and a token', async () => {
    const { code, output } = await cli('runtime', 'serve', '--address', '0.0.0.0:0');
    expect(code).toBe(1);
    expect(output).toContain('toolyard: refusing to listen on 0.0.0.0');
  });
});
