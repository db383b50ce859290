import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../src/core/http/app.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { CLIENT_TYPES } from '../../src/runtime/clients/catalog.js';
import { registerClientRoutes } from '../../src/runtime/clients/routes.js';
import { createClientTestbed, EVERYTHING, type ClientTestbed } from '../../src/runtime/clients/service-testing.js';

const API = '/api/v1beta';

describe('the local API: clients', () => {
  let bed: ClientTestbed;
  let app: HttpApp;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => app.inject({ method, url: `${API}${url}`, ...(payload !== undefined && { payload }) });
  const error = async (response: ReturnType<typeof call>) => (await response).json<{ error: string }>().error;

  beforeEach(async () => {
    bed = await createClientTestbed();
    bed.running = [EVERYTHING];
    app = createHttpApp({ logger: silentLogger });
    registerClientRoutes(app, { clients: bed.service });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await bed.close();
  });

  it('lists every supported client with what it supports', async () => {
    const response = await call('GET', '/discovery/clients');
    expect(response.statusCode).toBe(200);
    const { clients } = response.json<{ clients: { client_type: string }[] }>();
    expect(clients.map((client) => client.client_type)).toEqual(CLIENT_TYPES);
    expect(clients[0]).toEqual({ client_type: 'claude-code', installed: false, registered: false, supports_skills: true, supports_plugins: true });
  });

  it('registers one client in the default group and writes its file', async () => {
    const response = await call('POST', '/clients', { name: 'cursor' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ name: 'cursor', groups: ['default'] });
    expect(JSON.parse(await bed.read('cursor'))).toEqual({ mcpServers: { everything: { url: EVERYTHING.url } } });
    expect((await call('GET', '/discovery/clients')).json<{ clients: { client_type: string; registered: boolean; installed: boolean }[] }>().clients.find((c) => c.client_type === 'cursor')).toMatchObject({
      registered: true,
      installed: true,
    });
  });

  it('registers and unregisters several clients', async () => {
    await bed.groups.write({ name: 'research', registered_clients: [] });
    const registered = await call('POST', '/clients/register', { names: ['vscode', 'zed'], groups: ['default', 'research'] });
    expect(registered.statusCode).toBe(200);
    expect(registered.json()).toEqual([
      { name: 'vscode', groups: ['default', 'research'] },
      { name: 'zed', groups: ['default', 'research'] },
    ]);
    expect((await call('GET', '/clients')).json()).toEqual([
      { name: 'vscode', groups: ['default', 'research'] },
      { name: 'zed', groups: ['default', 'research'] },
    ]);

    expect((await call('POST', '/clients/unregister', { names: ['zed'], groups: ['research'] })).statusCode).toBe(204);
    expect((await call('POST', '/clients/unregister', { names: ['vscode'] })).statusCode).toBe(204);
    expect((await call('GET', '/clients')).json()).toEqual([{ name: 'zed', groups: ['default'] }]);
    expect(JSON.parse(await bed.read('vscode'))).toEqual({});
  });

  it('removes a client, or takes it out of one group', async () => {
    await call('POST', '/clients', { name: 'cursor' });
    await call('POST', '/clients', { name: 'codex' });
    expect((await call('DELETE', '/clients/cursor')).statusCode).toBe(204);
    expect((await call('DELETE', '/clients/codex/groups/default')).statusCode).toBe(204);
    expect((await call('GET', '/clients')).json()).toEqual([]);
    expect(await bed.read('codex')).toBe('');
  });

  it('answers 400 for an unknown client type, naming the known ones, and 404 for an unknown group', async () => {
    const unknown = call('POST', '/clients', { name: 'notepad' });
    expect((await unknown).statusCode).toBe(400);
    expect(await error(unknown)).toBe(`unknown client type notepad; known types: ${CLIENT_TYPES.join(', ')}`);
    expect((await call('POST', '/clients/register', { names: ['cursor', 'notepad'] })).statusCode).toBe(400);
    expect((await call('DELETE', '/clients/notepad')).statusCode).toBe(400);
    expect(await error(call('POST', '/clients', {}))).toBe('body.name: is required');
    expect((await call('POST', '/clients/register', { names: [] })).statusCode).toBe(400);

    const missing = call('POST', '/clients', { name: 'cursor', groups: ['nope'] });
    expect((await missing).statusCode).toBe(404);
    expect(await error(missing)).toBe('group nope not found');
    expect((await call('DELETE', '/clients/cursor/groups/nope')).statusCode).toBe(404);
    expect((await call('POST', '/clients/unregister', { names: ['cursor'], groups: ['nope'] })).statusCode).toBe(404);
    expect((await call('GET', '/clients')).json()).toEqual([]);
  });
});
