import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimePaths } from '../../src/runtime/paths.js';
import { waitFor } from '../helpers/cli.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const LONG = 'x'.repeat(300);

describe('the local API answers bad input and broken state files with a 4xx naming the problem (fake supervisors)', () => {
  let runtime: TestRuntime;
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const refused = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
    const response = await call(method, url, payload);
    return { status: response.statusCode, error: response.json<{ error?: string }>().error ?? '' };
  };
  const runConfig = (name: string) => join(runtimePaths(runtime.env).state, 'runconfigs', `${name}.json`);
  const remote = (name: string, extra: object = {}) => call('POST', '/workloads', { name, url: 'http://127.0.0.1:9/mcp', ...extra });

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
  });
  afterAll(() => runtime.close());

  it('checks workload and group names with one rule in bodies, paths and query strings, before the disk is touched', async () => {
    for (const action of ['stop', 'restart', 'delete']) {
      expect(await refused('POST', `/workloads/${action}`, { names: [LONG] }), action).toEqual({ status: 400, error: 'body.names.0: must NOT have more than 63 characters' });
      expect((await refused('POST', `/workloads/${action}`, { names: ['../../etc'] })).status, action).toBe(400);
      expect((await refused('POST', `/workloads/${action}`, { group: LONG })).status, action).toBe(400);
    }
    expect((await refused('GET', `/workloads?group=${LONG}`)).status).toBe(400);
    expect((await refused('GET', `/workloads/upgrade-check?group=${LONG}`)).status).toBe(400);
    expect((await refused('GET', `/workloads/${LONG}`)).status).toBe(400);
    expect((await refused('GET', `/groups/${LONG}`)).status).toBe(400);
    expect((await refused('POST', '/groups', { name: LONG })).status).toBe(400);
    expect((await refused('POST', '/clients', { name: 'cursor', groups: [LONG] })).status).toBe(400);
    expect((await refused('DELETE', `/clients/cursor/groups/${LONG}`)).status).toBe(400);
    expect((await refused('POST', '/workloads', { name: 'fine', url: 'http://127.0.0.1:9/mcp', group: LONG })).status).toBe(400);
  });

  it('refuses a url whose user name or password has a bad percent-escape, at create and at edit', async () => {
    const created = await refused('POST', '/workloads', { name: 'userinfo', url: 'http://us%zz:pw@127.0.0.1:9/mcp' });
    expect(created.status).toBe(400);
    expect(created.error).toContain('%25');
    expect((await call('GET', '/workloads/userinfo')).statusCode).toBe(404);

    expect((await remote('userinfo')).statusCode).toBe(201);
    const edited = await refused('POST', '/workloads/userinfo/edit', { url: 'http://user:p%ss@127.0.0.1:9/mcp' });
    expect(edited.status).toBe(400);
    expect((await call('GET', '/workloads/userinfo')).json()).toMatchObject({ url: 'http://127.0.0.1:9/mcp' });
  });

  it('takes as host only localhost or an IP address of this machine, never a name to look up', async () => {
    const named = await refused('POST', '/workloads', { name: 'named', url: 'http://127.0.0.1:9/mcp', host: 'example.invalid' });
    expect(named).toEqual({ status: 400, error: expect.stringContaining('host "example.invalid" must be an IP address of this machine') as unknown });
    const elsewhere = await refused('POST', '/workloads', { name: 'elsewhere', url: 'http://127.0.0.1:9/mcp', host: '203.0.113.7' });
    expect(elsewhere).toEqual({ status: 400, error: 'host 203.0.113.7 is not an address of this machine, so the proxy could not listen on it' });
    for (const [name, host] of [['loopback', '127.0.0.1'], ['named-loopback', 'localhost'], ['v6-loopback', '::1'], ['every-interface', '0.0.0.0']]) {
      expect((await remote(name ?? '', { host })).statusCode, host).toBe(201);
    }
  });

  it('refuses a registry api_url or url that is not an http(s) URL, and keeps the registry it had', async () => {
    expect(await refused('PUT', '/registry/default', { api_url: 'not a url' })).toEqual({
      status: 400,
      error: 'api_url: "not a url" is not a URL; give an http or https URL such as https://registry.example.com/registry/default',
    });
    expect(await refused('PUT', '/registry/default', { api_url: 'ftp://registry.example.com/' })).toEqual({ status: 400, error: 'api_url: ftp: URLs are not supported; use http or https' });
    expect((await call('GET', '/registry')).json()).toMatchObject({ registries: [{ name: 'default', type: 'default' }] });
  });

  it('lists a workload whose run configuration is broken as an error naming the file, beside the others, and deletes it', async () => {
    expect((await remote('healthy')).statusCode).toBe(201);
    expect((await remote('broken')).statusCode).toBe(201);
    const file = runConfig('broken');
    const saved = await readFile(file, 'utf8');
    const statusOf = async (name: string) => (await call('GET', `/workloads/${name}/status`)).json<{ status: string; status_context: string }>();
    const listed = async () =>
      Object.fromEntries((await call('GET', '/workloads?all=true')).json<{ workloads: { name: string; status: string; status_context: string }[] }>().workloads.map((w) => [w.name, w]));

    // cut short by a crash
    await writeFile(file, saved.slice(0, saved.length / 2));
    expect((await listed()).healthy).toMatchObject({ status: 'running' });
    expect((await listed()).broken).toMatchObject({ status: 'error', status_context: expect.stringMatching(/broken\.json cannot be used: it is not valid JSON/) as unknown });
    expect(await statusOf('broken')).toMatchObject({ status: 'error', status_context: expect.stringContaining(file) as unknown });
    for (const path of ['/workloads/broken', '/workloads/broken/export']) {
      const answer = await refused('GET', path);
      expect(answer.status, path).toBe(409);
      expect(answer.error, path).toContain(file);
    }
    expect((await call('GET', '/workloads/healthy')).statusCode).toBe(200);

    // edited by hand into something that is JSON but not a run configuration
    await writeFile(file, saved.replace(/"port": \d+/, '"port": "eighty"'));
    expect((await statusOf('broken')).status_context).toMatch(/broken\.json cannot be used: port: Expected integer/);

    // written by a newer toolyard
    await writeFile(file, saved.replace(/"schema_version": "[^"]*"/, '"schema_version": "v9.0.0"'));
    expect((await statusOf('broken')).status_context).toBe(
      `${file} cannot be used: it has schema_version v9.0.0, written by a newer toolyard; this toolyard reads v1.0.0 and older: upgrade toolyard`,
    );
    expect((await listed()).healthy).toMatchObject({ status: 'running' });

    expect((await call('DELETE', '/workloads/broken')).statusCode).toBe(202);
    await waitFor(async () => ((await call('GET', '/workloads/broken/status')).statusCode === 404 ? true : undefined), 10_000, 'broken deleted');
  });

  it('reports a broken status file as that workload\'s error', async () => {
    expect((await remote('unstatused')).statusCode).toBe(201);
    const file = join(runtimePaths(runtime.env).data, 'statuses', 'unstatused.json');
    await writeFile(file, JSON.stringify({ status: 'dancing', status_context: '', started_at: '', restarts: 0, updated_at: '' }));
    expect((await call('GET', '/workloads/unstatused/status')).json()).toEqual({
      status: 'error',
      status_context: `${file} cannot be used: status: must be one of starting, running, stopping, stopped, removing, error, unhealthy`,
    });
    expect((await call('GET', '/workloads?all=true')).statusCode).toBe(200);
  });

  it('answers 409 naming a group or registry settings file that cannot be used', async () => {
    const paths = runtimePaths(runtime.env);
    const group = join(paths.state, 'groups', 'team.json');
    await mkdir(join(paths.state, 'groups'), { recursive: true });
    await writeFile(group, '{"name": "team", "registered_clients": "cursor"}');
    expect(await refused('GET', '/groups')).toEqual({ status: 409, error: `${group} cannot be used: registered_clients: Expected array` });
    await writeFile(group, '{"name": "team", "registered_clients": []}');
    expect((await call('GET', '/groups/team')).statusCode).toBe(200);

    const settings = join(paths.config, 'registry.json');
    await mkdir(paths.config, { recursive: true });
    await writeFile(settings, '{"api_url": 42}');
    expect(await refused('GET', '/registry')).toEqual({ status: 409, error: `${settings} cannot be used: api_url: Expected string` });
    await writeFile(settings, '{}');
    expect((await call('GET', '/registry')).statusCode).toBe(200);
  });

  it('reads a quoted codex key with any TOML escape, and answers 409 when an edit would touch entries Toolyard does not own', async () => {
    const codex = join(runtime.home, '.codex', 'config.toml');
    await mkdir(join(runtime.home, '.codex'), { recursive: true });
    const before = '[projects."/home/me/\\U0001F600 \\u00e9"]\ntrust_level = "trusted"\n';
    await writeFile(codex, before);
    expect((await call('POST', '/clients', { name: 'codex' })).statusCode).toBe(200);
    expect(await readFile(codex, 'utf8')).toContain('[mcp_servers.healthy]');
    expect((await call('DELETE', '/clients/codex')).statusCode).toBe(204);
    expect(await readFile(codex, 'utf8')).toBe(before);

    expect((await call('POST', '/clients', { name: 'codex' })).statusCode).toBe(200);
    // the user adds a table inside an entry Toolyard wrote, so rewriting the entry would keep it
    const added = `${await readFile(codex, 'utf8')}\n[mcp_servers.healthy.env]\nMODE = "mine"\n`;
    await writeFile(codex, added);
    const answer = await refused('POST', '/clients', { name: 'codex' });
    expect(answer.status).toBe(409);
    expect(answer.error).toBe(`editing ${codex} would have changed entries Toolyard does not own; nothing was written`);
    expect(await readFile(codex, 'utf8')).toBe(added);
  });
});
