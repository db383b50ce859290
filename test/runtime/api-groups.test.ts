import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/cli.js';
import { testRuntime, type TestRuntime } from './fixtures.js';

const API = '/api/v1beta';

describe('the local API: groups (fake supervisors)', () => {
  let runtime: TestRuntime;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    runtime.app.http.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const groupOf = async (name: string) => (await call('GET', `/workloads/${name}`)).json<{ group: string }>().group;

  beforeAll(async () => {
    runtime = await testRuntime({ supervisor: 'fake' });
  });
  afterAll(() => runtime.close());

  it('has default from the start, creates groups once and gets them by name', async () => {
    expect((await call('GET', '/groups')).json()).toEqual({ groups: [{ name: 'default', registered_clients: [] }] });
    const created = await call('POST', '/groups', { name: 'research' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ name: 'research' });
    expect((await call('POST', '/groups', { name: 'research' })).statusCode).toBe(409);
    expect((await call('POST', '/groups', { name: 'default' })).statusCode).toBe(409);
    expect((await call('GET', '/groups/research')).json()).toEqual({ name: 'research', registered_clients: [] });
    expect((await call('GET', '/groups')).json<{ groups: { name: string }[] }>().groups.map((group) => group.name)).toEqual(['default', 'research']);

    const bad = await call('POST', '/groups', { name: 'no spaces' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: string }>().error).toContain('name');
    expect((await call('POST', '/groups', {})).json<{ error: string }>().error).toBe('body.name: is required');
    expect((await call('GET', '/groups/nope')).statusCode).toBe(404);
    expect((await call('DELETE', '/groups/nope')).statusCode).toBe(404);
  });

  it('refuses to delete default', async () => {
    const response = await call('DELETE', '/groups/default');
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: string }>().error).toContain('default');
  });

  it('refuses a workload in a group that does not exist', async () => {
    expect((await call('POST', '/workloads', { url: 'http://127.0.0.1:9/mcp', group: 'nope' })).statusCode).toBe(400);
  });

  it('moves the workloads of a deleted group to default', async () => {
    await call('POST', '/groups', { name: 'movers' });
    expect((await call('POST', '/workloads', { name: 'mover', url: 'http://127.0.0.1:9/mcp', group: 'movers' })).statusCode).toBe(201);
    expect((await call('GET', '/workloads?group=movers')).json<{ workloads: { name: string }[] }>().workloads.map((w) => w.name)).toEqual(['mover']);

    expect((await call('DELETE', '/groups/movers')).statusCode).toBe(204);
    expect((await call('GET', '/groups/movers')).statusCode).toBe(404);
    expect(await groupOf('mover')).toBe('default');
    expect((await call('GET', '/workloads/mover/status')).json()).toMatchObject({ status: 'running' });
  });

  it('deletes the workloads of a group with with-workloads=true', async () => {
    await call('POST', '/groups', { name: 'doomed' });
    expect((await call('POST', '/workloads', { name: 'doomed-one', url: 'http://127.0.0.1:9/mcp', group: 'doomed' })).statusCode).toBe(201);
    expect((await call('DELETE', '/groups/doomed?with-workloads=true')).statusCode).toBe(204);
    expect((await call('GET', '/groups/doomed')).statusCode).toBe(404);
    await waitFor(async () => ((await call('GET', '/workloads/doomed-one')).statusCode === 404 ? true : undefined), 5_000, 'doomed-one removed');
    expect(await groupOf('mover')).toBe('default');
  });
});
