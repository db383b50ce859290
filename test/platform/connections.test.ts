import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { Connection } from '../../src/platform/connections/schemas.js';
import { toolEnabled } from '../../src/platform/connections/lookup.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { Group, Page, User } from '../../src/platform/directory/schemas.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createDirectoryPlatform, type DirectoryFixture } from './directory-testing.js';
import { startTestProvider, type CallOptions, type TestPlatform } from './helpers.js';

type Answer = Connection & { error: string };
type ConnectionPage = { items: Connection[]; next_cursor?: string; prev_cursor?: string; error: string };
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('connections (%s)', (_name, target) => {
  let provider: OidcProvider;
  let fixture: DirectoryFixture;
  let platform: TestPlatform;
  const tokens = { admin: '', connector: '', auditor: '', alice: '', bob: '', dave: '' };
  const users = { alice: '', bob: '', dave: '' };
  let team = '';
  let serial = 0;

  const call = <T = Answer>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, options: CallOptions = {}) => platform.call<T>(method, url, { token: tokens.alice, ...options });
  const createConnector = async (options: { gateway?: string; visible?: boolean } = {}): Promise<Connector> => {
    serial += 1;
    const gateway = options.gateway ?? 'default';
    const response = await platform.call<Connector>('POST', `/v1/gateways/${gateway}/connectors`, {
      token: tokens.connector,
      body: { name: `Connection ${String(serial)}`, endpoint: `https://mcp.example.invalid/${String(serial)}`, transport: 'streamable-http', auth: { type: 'none' } },
    });
    expect(response.status, response.text).toBe(201);
    if (options.visible ?? true) await grant(response.body.id, [team]);
    return response.body;
  };
  const grant = async (connectorId: string, groupIds: string[]) => {
    const response = await platform.call('PUT', `/v1/connectors/${connectorId}/policy/groups`, { token: tokens.connector, body: { group_ids: groupIds }, headers: { 'if-match': '*' } });
    expect(response.status, response.text).toBe(200);
  };
  const connect = async (connector: Connector, token = tokens.alice, extra: Record<string, unknown> = {}) => {
    const response = await call('POST', '/v1/me/connections', { token, body: { gateway_id: connector.gateway_id, connector_id: connector.id, ...extra } });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const userId = async (userName: string, token: string) => {
    expect((await platform.call('GET', '/v1/gateways', { token })).status).toBe(200);
    const found = await platform.call<Page<User>>('GET', `/v1/users?user_name=${userName}`, { token: tokens.admin });
    const id = found.body.items[0]?.id;
    if (id === undefined) throw new Error(`no user ${userName}`);
    return id;
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    fixture = await createDirectoryPlatform(provider, target, { connectorGateway: { gateways: [{ id: 'default', name: 'Default' }, { id: 'eu', name: 'EU' }] } });
    platform = fixture.platform;
    const exp = nowSeconds() + 3600;
    tokens.admin = await provider.mint({ sub: 'root', exp, claims: { roles: ['admin'] } });
    tokens.connector = await provider.mint({ sub: 'connie', exp, claims: { roles: ['connectorAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp, claims: { preferred_username: 'alice' } });
    tokens.bob = await provider.mint({ sub: 'bob', exp, claims: { preferred_username: 'bob' } });
    tokens.dave = await provider.mint({ sub: 'dave-ext', exp });
    users.alice = await userId('alice', tokens.alice);
    users.bob = await userId('bob', tokens.bob);
    users.dave = await fixture.scimUser('dave', { externalId: 'dave-ext' });
    const group = await platform.call<Group>('POST', '/v1/groups', { token: tokens.admin, body: { name: 'team' } });
    team = group.body.id;
    for (const user of Object.values(users)) expect((await platform.call('POST', `/v1/groups/${team}/users/${user}`, { token: tokens.admin })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('creates my connection with the defaults and every field, lists it as mine, and shows it to connectorAdmin and auditor', async () => {
    const connector = await createConnector();
    const created = await connect(connector);
    expect(created).toEqual({
      connector_id: connector.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
      enabled: true,
      gateway_id: 'default',
      id: expect.any(String) as string,
      tools_enabled_by_default: true,
      tools_exception_list: [],
      updated_at: created.created_at,
      user_id: users.alice,
    });
    const mine = await call<ConnectionPage>('GET', '/v1/me/connections');
    expect(mine.body.items.map((item) => item.id)).toContain(created.id);
    expect((await call<ConnectionPage>('GET', '/v1/me/connections', { token: tokens.bob })).body.items.map((item) => item.id)).not.toContain(created.id);
    for (const token of [tokens.connector, tokens.auditor]) expect((await call('GET', `/v1/connections/${created.id}`, { token })).body).toEqual(created);
    expect((await call('GET', `/v1/connections/${created.id}`)).status).toBe(403);
    expect((await call('GET', `/v1/connections/${UNKNOWN}`, { token: tokens.auditor })).status).toBe(404);
    const narrowed = await connect(await createConnector(), tokens.alice, { enabled: false, tools_enabled_by_default: false, tools_exception_list: ['echo'] });
    expect(narrowed).toMatchObject({ enabled: false, tools_enabled_by_default: false, tools_exception_list: ['echo'] });
  });

  it('refuses a second connection (409), an unknown connector (404), an invisible one (403) and bad bodies (400)', async () => {
    const connector = await createConnector();
    await connect(connector);
    const again = await call('POST', '/v1/me/connections', { body: { gateway_id: 'default', connector_id: connector.id } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already have a connection/);
    expect((await call('POST', '/v1/me/connections', { token: tokens.bob, body: { gateway_id: 'default', connector_id: connector.id } })).status).toBe(201);

    expect((await call('POST', '/v1/me/connections', { body: { gateway_id: 'default', connector_id: UNKNOWN } })).status).toBe(404);
    expect((await call('POST', '/v1/me/connections', { body: { gateway_id: 'eu', connector_id: connector.id } })).status).toBe(404);
    const unknownGateway = await call('POST', '/v1/me/connections', { body: { gateway_id: 'nowhere', connector_id: connector.id } });
    expect(unknownGateway.status).toBe(400);
    expect(unknownGateway.body.error).toMatch(/gateway_id/);
    const hidden = await createConnector({ visible: false });
    const invisible = await call('POST', '/v1/me/connections', { body: { gateway_id: 'default', connector_id: hidden.id } });
    expect(invisible.status).toBe(403);
    expect(invisible.body.error).toMatch(/not visible/);

    const other = await createConnector();
    const body = (extra: Record<string, unknown>) => ({ body: { gateway_id: 'default', connector_id: other.id, ...extra } });
    const duplicate = await call('POST', '/v1/me/connections', body({ tools_exception_list: ['a', 'b', 'a'] }));
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error).toMatch(/tools_exception_list\[2\].*twice/);
    const tooMany = await call('POST', '/v1/me/connections', body({ tools_exception_list: Array.from({ length: 501 }, (_, index) => `tool-${String(index)}`) }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/tools_exception_list/);
    expect((await call('POST', '/v1/me/connections', body({ tools_exception_list: Array.from({ length: 500 }, (_, index) => `tool-${String(index)}`) }))).status).toBe(201);
    expect((await call('POST', '/v1/me/connections', body({ user_id: users.bob }))).status).toBe(400);
    expect((await call('POST', '/v1/me/connections', { body: { gateway_id: 'default' } })).status).toBe(400);
    expect((await call('POST', '/v1/me/connections', { token: '', body: { gateway_id: 'default', connector_id: other.id } })).status).toBe(401);
  });

  it("answers 404 for another user's connection on every own route", async () => {
    const created = await connect(await createConnector());
    const asBob = { token: tokens.bob };
    expect((await call('PUT', `/v1/me/connections/${created.id}/enabled`, { ...asBob, body: { enabled: false } })).status).toBe(404);
    expect((await call('PUT', `/v1/me/connections/${created.id}/tools`, { ...asBob, body: { tools_enabled_by_default: false, tools_exception_list: [] } })).status).toBe(404);
    expect((await call('DELETE', `/v1/me/connections/${created.id}`, asBob)).status).toBe(404);
    expect((await call('GET', `/v1/connections/${created.id}`, { token: tokens.auditor })).body).toEqual(created);
    expect((await call('DELETE', `/v1/me/connections/${UNKNOWN}`)).status).toBe(404);
  });

  it('disables and enables my connection; enabling needs the connector visible (403)', async () => {
    const connector = await createConnector();
    const created = await connect(connector);
    const disabled = await call('PUT', `/v1/me/connections/${created.id}/enabled`, { body: { enabled: false } });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: created.id, enabled: false });
    await grant(connector.id, []);
    const refused = await call('PUT', `/v1/me/connections/${created.id}/enabled`, { body: { enabled: true } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/not visible/);
    expect((await call('PUT', `/v1/me/connections/${created.id}/enabled`, { body: { enabled: false } })).status).toBe(200);
    await grant(connector.id, [team]);
    expect((await call('PUT', `/v1/me/connections/${created.id}/enabled`, { body: { enabled: true } })).body.enabled).toBe(true);
    expect((await call('PUT', `/v1/me/connections/${created.id}/enabled`, { body: { enabled: 'yes' } })).status).toBe(400);
  });

  it('sets the narrowing that the connector gateway reads', async () => {
    const connector = await createConnector();
    const created = await connect(connector);
    const state = () => platform.features.connections.find(users.alice, connector.id);
    expect(toolEnabled(await state(), 'echo')).toBe(true);
    const except = await call('PUT', `/v1/me/connections/${created.id}/tools`, { body: { tools_enabled_by_default: true, tools_exception_list: ['echo'] } });
    expect(except.status, except.text).toBe(200);
    expect(except.body).toMatchObject({ tools_enabled_by_default: true, tools_exception_list: ['echo'] });
    expect(toolEnabled(await state(), 'echo')).toBe(false);
    expect(toolEnabled(await state(), 'add')).toBe(true);
    await call('PUT', `/v1/me/connections/${created.id}/tools`, { body: { tools_enabled_by_default: false, tools_exception_list: ['echo'] } });
    expect(toolEnabled(await state(), 'echo')).toBe(true);
    expect(toolEnabled(await state(), 'add')).toBe(false);
    const duplicate = await call('PUT', `/v1/me/connections/${created.id}/tools`, { body: { tools_enabled_by_default: false, tools_exception_list: ['x', 'x'] } });
    expect(duplicate.status).toBe(400);
    expect((await call('PUT', `/v1/me/connections/${created.id}/tools`, { body: { tools_enabled_by_default: false } })).status).toBe(400);
  });

  it("deletes my connection, back to the default (no connection: enabled, every tool)", async () => {
    const connector = await createConnector();
    const created = await connect(connector);
    expect((await call('DELETE', `/v1/me/connections/${created.id}`)).status).toBe(204);
    expect(await platform.features.connections.find(users.alice, connector.id)).toBeUndefined();
    expect((await call('GET', `/v1/connections/${created.id}`, { token: tokens.auditor })).status).toBe(404);
    expect((await call('DELETE', `/v1/me/connections/${created.id}`)).status).toBe(404);
    await connect(connector);
  });

  it("lists a connector's connections by created_at, paged both ways (connectorAdmin, auditor)", async () => {
    const connector = await createConnector({ gateway: 'eu' });
    const made = [await connect(connector, tokens.alice), await connect(connector, tokens.bob), await connect(connector, tokens.dave)];
    const path = `/v1/gateways/eu/connectors/${connector.id}/connections`;
    const all = await call<ConnectionPage>('GET', path, { token: tokens.auditor });
    expect(all.status, all.text).toBe(200);
    expect(all.body.items.map((item) => item.id).sort()).toEqual(made.map((item) => item.id).sort());
    const order = all.body.items.map((item) => item.id);
    const seen: string[] = [];
    let page = await call<ConnectionPage>('GET', `${path}?limit=1`, { token: tokens.connector });
    for (;;) {
      seen.push(...page.body.items.map((item) => item.id));
      if (page.body.next_cursor === undefined) break;
      page = await call<ConnectionPage>('GET', `${path}?limit=1&cursor=${page.body.next_cursor}`, { token: tokens.connector });
    }
    expect(seen).toEqual(order);
    const back = await call<ConnectionPage>('GET', `${path}?limit=1&before=${page.body.prev_cursor ?? ''}`, { token: tokens.connector });
    expect(back.body.items.map((item) => item.id)).toEqual([order[1]]);
    expect((await call('GET', `${path}?cursor=nonsense`, { token: tokens.auditor })).status).toBe(400);
    expect((await call('GET', path)).status).toBe(403);
    expect((await call('GET', `/v1/gateways/default/connectors/${connector.id}/connections`, { token: tokens.auditor })).status).toBe(404);
    expect((await call('GET', `/v1/gateways/nowhere/connectors/${connector.id}/connections`, { token: tokens.auditor })).status).toBe(404);
    expect((await call('GET', `/v1/gateways/eu/connectors/not-a-uuid/connections`, { token: tokens.auditor })).status).toBe(400);
  });

  it('creates, sets and removes the caller state through the seam the connector gateway uses', async () => {
    const connector = await createConnector();
    const { connections } = platform.features;
    const created = await connections.setEnabled(users.bob, 'default', connector.id, false);
    expect(created).toMatchObject({ user_id: users.bob, connector_id: connector.id, enabled: false, tools_enabled_by_default: true, tools_exception_list: [] });
    const changed = await connections.setEnabled(users.bob, 'default', connector.id, true);
    expect(changed).toMatchObject({ id: created.id, enabled: true });
    expect((await connections.find(users.bob, connector.id))?.id).toBe(created.id);
    expect(await connections.remove(users.bob, connector.id)).toBe(true);
    expect(await connections.remove(users.bob, connector.id)).toBe(false);
  });

  it('removes the connections of a deleted connector and of a deleted user', async () => {
    const connector = await createConnector();
    const gone = await connect(connector);
    expect((await platform.call('DELETE', `/v1/gateways/default/connectors/${connector.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await call('GET', `/v1/connections/${gone.id}`, { token: tokens.auditor })).status).toBe(404);

    const kept = await createConnector();
    const daves = await connect(kept, tokens.dave);
    expect((await fixture.scim('DELETE', `/Users/${users.dave}`)).status).toBe(204);
    expect((await call('GET', `/v1/connections/${daves.id}`, { token: tokens.auditor })).status).toBe(404);
  });
});
