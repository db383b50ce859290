import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/cli.js';
import { EVERYTHING, testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';

describe('the local API: workloads (fake supervisors)', () => {
  let runtime: TestRuntime;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const statusOf = async (name: string) => (await call('GET', `/workloads/${name}/status`)).json<{ status: string }>().status;
  const settled = (name: string, status: string) => waitFor(async () => ((await statusOf(name)) === status ? true : undefined), 10_000, `${name} ${status}`);

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
  });
  afterAll(() => runtime.close());

  it('creates a workload, lists it with every summary field, and returns its details as saved', async () => {
    const body = { name: 'everything', image: EVERYTHING, cmd_arguments: ['stdio'], env_vars: { MODE: 'test' }, labels: { team: 'a' }, tools: ['echo'] };
    const created = await call('POST', '/workloads', body);
    expect(created.statusCode).toBe(201);
    const { name, port } = created.json<{ name: string; port: number }>();
    expect(name).toBe('everything');
    expect(port).toBeGreaterThanOrEqual(10000);

    const list = (await call('GET', '/workloads')).json<{ workloads: Record<string, unknown>[] }>();
    expect(list.workloads).toEqual([
      expect.objectContaining({ name, port, status: 'running', status_context: '', group: 'default', remote: false, package: EVERYTHING, transport_type: 'stdio', proxy_mode: 'streamable-http', labels: { team: 'a' }, tools: ['echo'], url: `http://127.0.0.1:${String(port)}/mcp` }),
    ]);
    expect(Object.keys(list.workloads[0] ?? {}).sort()).toEqual(
      ['created_at', 'group', 'labels', 'name', 'package', 'port', 'proxy_mode', 'remote', 'started_at', 'status', 'status_context', 'tools', 'transport_type', 'url'],
    );

    const details = (await call('GET', `/workloads/${name}`)).json<Record<string, unknown>>();
    expect(details).toMatchObject({ ...body, group: 'default', proxy_port: port });
    const exported = (await call('GET', `/workloads/${name}/export`)).json<Record<string, unknown>>();
    expect(exported).toMatchObject({ name, port, image: EVERYTHING, schema_version: expect.any(String) as unknown, env_vars: body.env_vars });
    expect(await statusOf(name)).toBe('running');
  });

  it('serves logs and proxy logs as text', async () => {
    for (const path of ['logs', 'proxy-logs']) {
      const response = await call('GET', `/workloads/everything/${path}`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
    }
  });

  it('edits a workload, keeping its port, and refuses a taken name, bad bodies and unknown names', async () => {
    const { proxy_port, ...saved } = (await call('GET', '/workloads/everything')).json<{ proxy_port: number }>();
    const edited = await call('POST', '/workloads/everything/edit', { ...saved, env_vars: { MODE: 'edited' }, labels: { team: 'b' } });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toEqual({ name: 'everything', port: proxy_port });
    expect((await call('GET', '/workloads/everything')).json()).toMatchObject({ env_vars: { MODE: 'edited' }, labels: { team: 'b' }, proxy_port });
    expect(await statusOf('everything')).toBe('running');

    expect((await call('POST', '/workloads', { name: 'everything', url: 'http://127.0.0.1:9/mcp' })).statusCode).toBe(409);
    const unknownField = await call('POST', '/workloads', { url: 'http://127.0.0.1:9/mcp', colour: 'red' });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json<{ error: string }>().error).toContain('colour');
    const badMode = await call('POST', '/workloads', { url: 'http://127.0.0.1:9/mcp', proxy_mode: 'websocket' });
    expect(badMode.statusCode).toBe(400);
    expect(badMode.json<{ error: string }>().error).toContain('proxy_mode');
    const bothSources = await call('POST', '/workloads', { url: 'http://127.0.0.1:9/mcp', image: 'npx://x' });
    expect(bothSources.statusCode).toBe(400);
    expect((await call('POST', '/workloads/nope/edit', { url: 'http://127.0.0.1:9/mcp' })).statusCode).toBe(404);
  });

  it('answers 404 for unknown workloads and groups, 400 for names that cannot exist', async () => {
    for (const path of ['/workloads/nope', '/workloads/nope/export', '/workloads/nope/status', '/workloads/nope/logs', '/workloads/nope/proxy-logs']) {
      const response = await call('GET', path);
      expect(response.statusCode, path).toBe(404);
      expect(response.json<{ error: string }>().error).toContain('nope');
    }
    expect((await call('POST', '/workloads/nope/stop')).statusCode).toBe(404);
    expect((await call('DELETE', '/workloads/nope')).statusCode).toBe(404);
    expect((await call('GET', '/workloads?group=nope')).statusCode).toBe(404);
    expect((await call('GET', '/workloads/..%2F..%2Fetc')).statusCode).toBe(400);
  });

  it('stops and restarts one workload with 202, listing a stopped one only with all=true', async () => {
    const stopped = await call('POST', '/workloads/everything/stop');
    expect(stopped.statusCode).toBe(202);
    expect(stopped.body).toBe('');
    await settled('everything', 'stopped');
    expect((await call('GET', '/workloads')).json()).toEqual({ workloads: [] });
    expect((await call('GET', '/workloads?all=true')).json<{ workloads: { name: string; status: string }[] }>().workloads).toEqual([
      expect.objectContaining({ name: 'everything', status: 'stopped' }),
    ]);
    expect((await call('POST', '/workloads/everything/restart')).statusCode).toBe(202);
    await settled('everything', 'running');
  });

  it('acts on many workloads by names or by group, and wants exactly one of them', async () => {
    await call('POST', '/groups', { name: 'team' });
    for (const name of ['bulk-a', 'bulk-b']) expect((await call('POST', '/workloads', { name, url: 'http://127.0.0.1:9/mcp', group: 'team' })).statusCode).toBe(201);

    expect((await call('POST', '/workloads/stop', { names: ['bulk-a', 'bulk-b'] })).statusCode).toBe(202);
    await settled('bulk-a', 'stopped');
    await settled('bulk-b', 'stopped');
    expect((await call('POST', '/workloads/restart', { group: 'team' })).statusCode).toBe(202);
    await settled('bulk-a', 'running');
    await settled('bulk-b', 'running');

    for (const body of [{}, { names: [] }, { names: ['bulk-a'], group: 'team' }]) {
      const response = await call('POST', '/workloads/stop', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json<{ error: string }>().error).toMatch(/names|group/);
    }
    expect((await call('POST', '/workloads/stop', { names: ['bulk-a', 'nope'] })).statusCode).toBe(404);
    expect((await call('POST', '/workloads/delete', { group: 'nope' })).statusCode).toBe(404);
    expect(await statusOf('bulk-a')).toBe('running');

    expect((await call('POST', '/workloads/delete', { group: 'team' })).statusCode).toBe(202);
    await waitFor(async () => ((await call('GET', '/workloads/bulk-a')).statusCode === 404 && (await call('GET', '/workloads/bulk-b')).statusCode === 404 ? true : undefined));
  });

  it('deletes one workload with 202', async () => {
    expect((await call('DELETE', '/workloads/everything')).statusCode).toBe(202);
    await waitFor(async () => ((await call('GET', '/workloads/everything')).statusCode === 404 ? true : undefined));
    expect((await call('GET', '/workloads?all=true')).json()).toEqual({ workloads: [] });
  });

  it('answers /health, the version and 405 for a wrong method', async () => {
    expect((await runtime.app.http.inject({ url: '/health' })).json()).toEqual({ status: 'ok' });
    expect((await call('GET', '/version')).json()).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown });
    const wrong = await call('DELETE', '/workloads');
    expect(wrong.statusCode).toBe(405);
    expect(wrong.json<{ error: string }>().error).toContain('GET');
  });
});
