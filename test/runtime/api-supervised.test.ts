import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/cli.js';
import { EVERYTHING, testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';
const SECRET_VALUE = 'never-show-this-value-5f3a9c2e71';

/** The pids of the supervisor processes (their entry file on the command line) of the runtime whose XDG_STATE_HOME is `stateHome`. */
async function supervisorsOf(stateHome: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!(await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes('supervisor-main')) continue;
      const environment = (await readFile(`/proc/${entry}/environ`, 'utf8')).split('\0');
      if (environment.includes(`XDG_STATE_HOME=${stateHome}`)) found.push(Number(entry));
    } catch {
      // ended while being read
    }
  }
  return found;
}

describe('the local API with real supervisors (server-everything)', () => {
  let runtime: TestRuntime;
  const bodies: string[] = [];
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
    const response = await runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
    bodies.push(response.body);
    return response;
  };
  const statusOf = async (name: string) => (await call('GET', `/workloads/${name}/status`)).json<{ status: string }>().status;
  const health = async (port: number) => (await fetch(`http://127.0.0.1:${String(port)}/health`)).status;
  let port = 0;

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'real', env: { TOOLYARD_SECRET_API_KEY: SECRET_VALUE } });
  });
  afterAll(() => runtime.close());

  it('runs a workload: 201 once its proxy serves, with logs from the supervisor', async () => {
    const created = await call('POST', '/workloads', { name: 'everything', image: EVERYTHING, cmd_arguments: ['stdio'], secrets: [{ name: 'api-key', target: 'API_KEY' }] });
    expect(created.statusCode).toBe(201);
    port = created.json<{ port: number }>().port;
    expect(await statusOf('everything')).toBe('running');
    expect(await health(port)).toBe(200);
    expect((await call('GET', '/workloads')).json<{ workloads: { name: string }[] }>().workloads.map((w) => w.name)).toEqual(['everything']);
    expect((await call('GET', '/workloads/everything/proxy-logs')).body).toContain('everything');
    expect((await call('GET', '/workloads/everything')).json()).toMatchObject({ secrets: [{ name: 'api-key', target: 'API_KEY' }] });
    expect((await call('GET', '/workloads/everything/export')).json()).toMatchObject({ secrets: [{ name: 'api-key', target: 'API_KEY' }] });
    await call('GET', '/workloads/everything/logs');
  });

  it('stops it (the proxy goes away) and restarts it on the same port', async () => {
    expect((await call('POST', '/workloads/everything/stop')).statusCode).toBe(202);
    await waitFor(async () => ((await statusOf('everything')) === 'stopped' ? true : undefined), 20_000, 'stopped');
    await expect(health(port)).rejects.toThrow();
    expect((await call('POST', '/workloads/restart', { names: ['everything'] })).statusCode).toBe(202);
    await waitFor(async () => ((await statusOf('everything')) === 'running' ? true : undefined), 20_000, 'running');
    expect(await health(port)).toBe(200);
    expect((await call('GET', '/workloads')).json<{ workloads: { port: number }[] }>().workloads).toEqual([expect.objectContaining({ port })]);
  });

  it('deletes it: the proxy goes away and so does the workload', async () => {
    expect((await call('DELETE', '/workloads/everything')).statusCode).toBe(202);
    await waitFor(async () => ((await call('GET', '/workloads/everything')).statusCode === 404 ? true : undefined), 20_000, 'deleted');
    await expect(health(port)).rejects.toThrow();
  });

  it('runs operations on one name in turn: whatever follows a delete is a 404, and no supervisor outlives it', async () => {
    const state = runtime.env.XDG_STATE_HOME ?? '';
    for (const name of ['racer-a', 'racer-b']) {
      expect((await call('POST', '/workloads', { name, url: 'http://127.0.0.1:9/mcp' })).statusCode).toBe(201);
      expect(await supervisorsOf(state)).toHaveLength(1);
      // fired together, in this order: the restart before the delete runs first, the rest find the workload gone
      const [restart, deleted, ...after] = await Promise.all([
        call('POST', `/workloads/${name}/restart`),
        call('DELETE', `/workloads/${name}`),
        call('POST', `/workloads/${name}/restart`),
        call('POST', `/workloads/${name}/stop`),
        call('POST', '/workloads/restart', { names: [name] }),
        call('POST', `/workloads/${name}/edit`, { url: 'http://127.0.0.1:9/mcp' }),
      ]);
      expect([restart.statusCode, deleted.statusCode]).toEqual([202, 202]);
      expect(after.map((response) => response.statusCode)).toEqual([404, 404, 404, 404]);
      await waitFor(async () => ((await call('GET', `/workloads/${name}/status`)).statusCode === 404 ? true : undefined), 30_000, `${name} deleted`);
      expect(await supervisorsOf(state)).toEqual([]);
    }
  });

  it('never showed the secret value in any response', () => {
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) expect(body).not.toContain(SECRET_VALUE);
  });
});
