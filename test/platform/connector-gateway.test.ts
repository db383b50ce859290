import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { Group, Page, User } from '../../src/platform/directory/schemas.js';
import type { ConnectorState, GatewayTool } from '../../src/platform/connector-gateway/schemas.js';
import type { ManagedSecret } from '../../src/platform/secrets/schemas.js';
import { freePort, startEverything, type RunningUpstream } from '../../src/runtime/proxy/reverse-proxy-testing.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, connectAs, listenLocally, recordsOf } from './connector-gateway-testing.js';
import { startFakeTokenEndpoint } from '../../src/platform/connector-credentials/token-endpoint-testing.js';
import { startGuardedMcpServer, type GuardedMcpServer } from './connectors-testing.js';
import { createDirectoryPlatform, type DirectoryFixture } from './directory-testing.js';
import { startTestProvider, tempFile, type CallOptions, type TestPlatform } from './helpers.js';

const KEY = 'u4xQp0yq8m0wz5g0m5xH1cYV9p0kqZ0m8yB2nQ3rV1s=';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const MCP = '/connector-gateway/v1/gateways/default/mcp';
const METADATA = 'https://platform.example.com/.well-known/oauth-protected-resource/connector-gateway/v1/gateways/default/mcp';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The JSON-RPC error a client call was answered with. */
async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('connector gateway (%s)', (_name, target) => {
  let provider: OidcProvider;
  let fixture: DirectoryFixture;
  let platform: TestPlatform;
  let base = '';
  let everything: RunningUpstream;
  let everythingSse: RunningUpstream;
  let guarded: GuardedMcpServer;
  const tokens = { admin: '', alice: '', bob: '', eve: '' };
  const users = { alice: '', bob: '' };
  const connectors: Record<'everything' | 'sse' | 'guarded' | 'broken' | 'exchange', Connector> = {} as never;
  let aliceKey = '';
  const clients: Client[] = [];

  const call = <T = ConnectorState & { error: string }>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, options: CallOptions = {}) => platform.call<T>(method, url, { token: tokens.alice, ...options });
  const state = (connector: Connector) => `/connector-gateway/v1/connectors/${connector.id}/state`;
  const client = async (headers: Record<string, string>) => {
    const connected = await connectAs(base, headers);
    clients.push(connected);
    return connected;
  };
  const createConnector = async (body: Record<string, unknown>): Promise<Connector> => {
    const response = await platform.call<Connector>('POST', '/v1/gateways/default/connectors', { token: tokens.admin, body: { transport: 'streamable-http', auth: { type: 'none' }, allow_private_ips: true, ...body } });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const grant = async (connector: Connector, groupIds: string[]) => {
    const response = await platform.call('PUT', `/v1/connectors/${connector.id}/policy/groups`, { token: tokens.admin, body: { group_ids: groupIds }, headers: { 'if-match': '*' } });
    expect(response.status, response.text).toBe(200);
  };
  const group = async (name: string, members: string[]) => {
    const created = await platform.call<Group>('POST', '/v1/groups', { token: tokens.admin, body: { name } });
    expect(created.status, created.text).toBe(201);
    for (const member of members) expect((await platform.call('POST', `/v1/groups/${created.body.id}/users/${member}`, { token: tokens.admin })).status).toBe(200);
    return created.body.id;
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
    [everything, everythingSse, guarded] = await Promise.all([startEverything('streamableHttp'), startEverything('sse'), startGuardedMcpServer('X-Api-Key', 'value-of-api-key')]);
    fixture = await createDirectoryPlatform(provider, target, { secrets: { keyFile: await tempFile('secrets.key', KEY) } });
    platform = fixture.platform;
    base = await listenLocally(platform);
    const exp = nowSeconds() + 3600;
    tokens.admin = await provider.mint({ sub: 'root', exp, claims: { roles: ['admin'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp, claims: { preferred_username: 'alice', email: 'alice@example.com' } });
    tokens.bob = await provider.mint({ sub: 'bob', exp, claims: { preferred_username: 'bob' } });
    tokens.eve = await provider.mint({ sub: 'eve-ext', exp });
    users.alice = await userId('alice', tokens.alice);
    users.bob = await userId('bob', tokens.bob);
    await fixture.scimUser('eve', { externalId: 'eve-ext', active: false });

    const secret = await platform.call<ManagedSecret>('POST', '/v1/managed-secrets', { token: tokens.admin, body: { name: 'api-key', value: 'value-of-api-key' } });
    expect(secret.status, secret.text).toBe(201);
    const idp = await platform.call<{ id: string }>('POST', '/v1/connector-identity-providers', {
      token: tokens.admin,
      body: { name: 'Entra', provider_type: 'oidc', oidc_config: { issuer_url: 'https://login.example.com', client_id: 'toolyard', token_endpoint_auth_method: 'none' } },
    });
    expect(idp.status, idp.text).toBe(201);
    connectors.everything = await createConnector({ name: 'Everything', endpoint: `http://127.0.0.1:${String(everything.port)}/mcp` });
    connectors.sse = await createConnector({ name: 'Everything SSE', endpoint: `http://127.0.0.1:${String(everythingSse.port)}/sse`, transport: 'sse' });
    connectors.guarded = await createConnector({
      name: 'Guarded',
      endpoint: `${guarded.url}/mcp`,
      auth: { type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value: { managed_secret_id: secret.body.id } } },
    });
    connectors.broken = await createConnector({ name: 'Broken', endpoint: `http://127.0.0.1:${String(await freePort())}/mcp` });
    connectors.exchange = await createConnector({ name: 'Exchange', endpoint: `${guarded.url}/exchange`, auth: { type: 'upstream_inject', upstream_inject: { provider_id: idp.body.id } } });

    const engineers = await group('engineers', [users.alice]);
    const everyone = await group('everyone', [users.alice, users.bob]);
    for (const connector of [connectors.everything, connectors.guarded, connectors.broken, connectors.exchange]) await grant(connector, [engineers]);
    await grant(connectors.sse, [everyone]);
    const key = await platform.call<{ secret: string }>('POST', '/v1/me/keys', { token: tokens.alice, body: { name: 'gateway' } });
    expect(key.status, key.text).toBe(201);
    aliceKey = key.body.secret;
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((connected) => connected.close()));
    await platform.dispose();
    await Promise.all([provider.close(), everything.stop(), everythingSse.stop(), guarded.close()]);
  });

  it('answers 401 with the path-inserted RFC 9728 metadata, which is served for the gateway', async () => {
    const refused = await platform.call<{ error: string }>('POST', MCP, { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/authentication required/);
    expect(refused.headers['www-authenticate']).toContain(`resource_metadata="${METADATA}"`);
    const badKey = await platform.call<{ error: string }>('POST', MCP, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { 'x-api-key': 'not-a-key' } });
    expect(badKey.status).toBe(401);
    expect(badKey.headers['www-authenticate']).toContain('error="invalid_token"');

    const metadata = await platform.call<Record<string, unknown>>('GET', '/.well-known/oauth-protected-resource/connector-gateway/v1/gateways/default/mcp');
    expect(metadata.status).toBe(200);
    expect(metadata.body).toEqual({
      resource: 'https://platform.example.com/connector-gateway/v1/gateways/default/mcp',
      authorization_servers: [provider.issuer],
      bearer_methods_supported: ['header'],
      jwks_uri: 'https://platform.example.com/.well-known/jwks.json',
      scopes_supported: platform.config.auth.oauth?.scopesSupported,
    });
    expect((await platform.call('GET', '/.well-known/oauth-protected-resource/connector-gateway/v1/gateways/nope/mcp')).status).toBe(404);

    const rest = await platform.call<{ error: string }>('GET', state(connectors.everything));
    expect(rest.status).toBe(401);
    expect(rest.headers['www-authenticate']).toContain('resource_metadata="https://platform.example.com/.well-known/oauth-protected-resource"');
  });

  it('refuses an inactive user with 401, on the MCP endpoint and the REST routes', async () => {
    const mcp = await platform.call<{ error: string }>('POST', MCP, { token: tokens.eve, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(mcp.status).toBe(401);
    expect(mcp.body.error).toMatch(/inactive/);
    expect((await platform.call('GET', state(connectors.everything), { token: tokens.eve })).status).toBe(401);
  });

  it('is stateless Streamable HTTP: no session id, GET 405, notifications 202, other methods not found', async () => {
    const get = await call<{ error: string }>('GET', MCP);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const initialize = await call<{ result: { protocolVersion: string; capabilities: unknown } }>('POST', MCP, {
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers['mcp-session-id']).toBeUndefined();
    expect(initialize.body.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: false } } });
    expect((await call('POST', MCP, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status).toBe(202);
    const unknown = await call<{ error: { code: number } }>('POST', MCP, { body: { jsonrpc: '2.0', id: 2, method: 'resources/list' } });
    expect(unknown.body.error.code).toBe(-32601);
    const notJson = await platform.call<{ error: { code: number } }>('POST', MCP, { token: tokens.alice, headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe(-32700);
    expect((await call('POST', '/connector-gateway/v1/gateways/nope/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } })).status).toBe(404);
  });

  it('lists the tools of every visible, enabled, servable connector with their prefixes; a failing upstream drops only its own', async () => {
    const alice = await client(bearer(tokens.alice));
    const { tools } = await alice.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('everything_sse__echo');
    expect(names).toContain('guarded__ping');
    expect(names.some((name) => name.startsWith('broken__') || name.startsWith('exchange__'))).toBe(false);
    const echo = tools.find((tool) => tool.name === 'everything__echo');
    expect(echo?.inputSchema.properties).toHaveProperty('message');

    const bob = await client(bearer(tokens.bob));
    const bobs = (await bob.listTools()).tools.map((tool) => tool.name);
    expect(bobs.length).toBeGreaterThan(0);
    expect(bobs.every((name) => name.startsWith('everything_sse__'))).toBe(true);
  });

  it('forwards a call as a JWT caller and as a virtual key caller, adds the call id and records each before answering', async () => {
    for (const headers of [bearer(tokens.alice), bearer(aliceKey), { 'x-api-key': aliceKey }]) {
      const connected = await client(headers);
      const result = await connected.callTool({ name: 'everything__echo', arguments: { message: 'hello' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
      const callId = String((result._meta as Record<string, unknown>)['io.toolyard/call-id']);
      expect(callId).toMatch(UUID);
      const [record] = await recordsOf(platform, tokens.alice, connectors.everything.id, callId);
      expect(record).toMatchObject({
        billable: true,
        billable_reason: 'delivered',
        call_id: callId,
        category: 'allowed',
        connector_id: connectors.everything.id,
        connector_name: 'Everything',
        decision: 'allowed',
        definition_version: connectors.everything.updated_at,
        environment: 'production',
        gateway_id: 'default',
        outcome: 'ok',
        tool_name: 'echo',
        user_email: 'alice@example.com',
        user_id: users.alice,
      });
      expect((record?.groups as { name: string }[]).map((entry) => entry.name).sort()).toEqual(['engineers', 'everyone']);
    }
    const guardedCall = await (await client(bearer(tokens.alice))).callTool({ name: 'guarded__ping', arguments: {} });
    expect(guardedCall.content).toEqual([{ type: 'text', text: 'pong' }]);
    const sseCall = await (await client(bearer(tokens.bob))).callTool({ name: 'everything_sse__echo', arguments: { message: 'over sse' } });
    expect(sseCall.content).toEqual([{ type: 'text', text: 'Echo: over sse' }]);
  });

  it('denies an invisible connector with -32003 and records it; an unknown prefix is -32602 and not recorded; an unservable one is -32000', async () => {
    const bob = await client(bearer(tokens.bob));
    const denied = await rpcError(bob.callTool({ name: 'everything__echo', arguments: { message: 'x' } }));
    expect(denied.code).toBe(-32003);
    expect(denied.message).toMatch(/not visible/);
    const callId = /call id ([0-9a-f-]{36})/.exec(denied.message)?.[1] ?? '';
    const [record] = await recordsOf(platform, tokens.bob, connectors.everything.id, callId);
    expect(record).toMatchObject({ decision: 'denied', outcome: 'error', billable: false, billable_reason: 'denied_by_policy', user_id: users.bob, tool_name: 'echo' });

    const unknown = await rpcError(bob.callTool({ name: 'nothing__echo', arguments: {} }));
    expect(unknown.code).toBe(-32602);

    const alice = await client(bearer(tokens.alice));
    const unservable = await rpcError(alice.callTool({ name: 'exchange__ping', arguments: {} }));
    expect(unservable.code).toBe(-32000);
    expect(unservable.message).toMatch(/cannot be served/);
    const exchangeId = /call id ([0-9a-f-]{36})/.exec(unservable.message)?.[1] ?? '';
    const [gatewayError] = await recordsOf(platform, tokens.alice, connectors.exchange.id, exchangeId);
    expect(gatewayError).toMatchObject({ decision: 'allowed', outcome: 'error', billable: false, billable_reason: 'gateway_error' });
  });

  it('leaves out and refuses a disabled connector and narrowed-out tools, recording disabled_by_user', async () => {
    const current = await call('GET', state(connectors.sse));
    const disabled = await call('PUT', state(connectors.sse), { body: { enabled: false }, headers: { 'if-match': String(current.headers.etag) } });
    expect(disabled.status, disabled.text).toBe(200);
    const alice = await client(bearer(tokens.alice));
    expect((await alice.listTools()).tools.some((tool) => tool.name.startsWith('everything_sse__'))).toBe(false);
    const refused = await rpcError(alice.callTool({ name: 'everything_sse__echo', arguments: { message: 'x' } }));
    expect(refused.code).toBe(-32003);
    expect(refused.message).toMatch(/disabled/);
    const callId = /call id ([0-9a-f-]{36})/.exec(refused.message)?.[1] ?? '';
    expect((await recordsOf(platform, tokens.alice, connectors.sse.id, callId))[0]).toMatchObject({ decision: 'denied', billable_reason: 'disabled_by_user' });
    // bob's state of the same connector is his own
    expect((await call('GET', state(connectors.sse), { token: tokens.bob })).body).toMatchObject({ enabled: true, updated_at: null });
    const cleared = await call('DELETE', state(connectors.sse), { headers: { 'if-match': String(disabled.headers.etag) } });
    expect(cleared.status, cleared.text).toBe(204);

    const connection = await call<{ id: string }>('POST', '/v1/me/connections', { body: { gateway_id: 'default', connector_id: connectors.sse.id, tools_enabled_by_default: false, tools_exception_list: ['echo'] } });
    expect(connection.status, connection.text).toBe(201);
    const narrowed = (await alice.listTools()).tools.filter((tool) => tool.name.startsWith('everything_sse__')).map((tool) => tool.name);
    expect(narrowed).toEqual(['everything_sse__echo']);
    const out = await rpcError(alice.callTool({ name: 'everything_sse__get-sum', arguments: { a: 1, b: 2 } }));
    expect(out.code).toBe(-32003);
    expect(out.message).toMatch(/narrowed out/);
    expect((await call('DELETE', `/v1/me/connections/${connection.body.id}`)).status).toBe(204);
  });

  it('lists a connector\u2019s tools over REST: 400 for a non-UUID id, 404 when invisible, 502 naming a failing upstream', async () => {
    const listed = await call<{ tools: GatewayTool[] }>('GET', `/connector-gateway/v1/connectors/${connectors.everything.id}/tools`);
    expect(listed.status, listed.text).toBe(200);
    const echo = listed.body.tools.find((tool) => tool.name === 'echo');
    expect(echo).toEqual({ name: 'echo', description: expect.any(String) as string, input_schema: expect.objectContaining({ type: 'object' }) as object, read_only_hint: true, destructive_hint: false });
    for (const tool of listed.body.tools) expect(Object.keys(tool).sort()).toEqual(['description', 'destructive_hint', 'input_schema', 'name', 'read_only_hint']);
    const viaKey = await platform.call<{ tools: GatewayTool[] }>('GET', `/connector-gateway/v1/connectors/${connectors.guarded.id}/tools`, { headers: { 'x-api-key': aliceKey } });
    // hints the upstream leaves out are null
    expect(viaKey.body.tools).toEqual([{ name: 'ping', description: 'answers pong', input_schema: expect.objectContaining({ type: 'object' }) as object, read_only_hint: null, destructive_hint: null }]);

    const notUuid = await call<{ error: string }>('GET', '/connector-gateway/v1/connectors/not-a-uuid/tools');
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.error).toMatch(/connector_id/);
    expect((await call('GET', `/connector-gateway/v1/connectors/${connectors.everything.id}/tools`, { token: tokens.bob })).status).toBe(404);
    expect((await call('GET', `/connector-gateway/v1/connectors/${UNKNOWN}/tools`)).status).toBe(404);
    const broken = await call<{ error: string }>('GET', `/connector-gateway/v1/connectors/${connectors.broken.id}/tools`);
    expect(broken.status).toBe(502);
    expect(broken.body.error).toMatch(/Broken/);
  });

  it('keeps the caller\u2019s state with its own ETag: If-Match required (428), stale (412), 501 for an unservable connector', async () => {
    const initial = await call('GET', state(connectors.everything));
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({ connector_id: connectors.everything.id, enabled: true, connection_status: 'ready', updated_at: null });
    const etag = String(initial.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]+"$/);

    expect((await call('PUT', state(connectors.everything), { body: { enabled: false } })).status).toBe(428);
    expect((await call('DELETE', state(connectors.everything))).status).toBe(428);
    expect((await call('PUT', state(connectors.everything), { body: { enabled: 'no' }, headers: { 'if-match': etag } })).status).toBe(400);
    const set = await call('PUT', state(connectors.everything), { body: { enabled: false }, headers: { 'if-match': etag } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ connector_id: connectors.everything.id, enabled: false, connection_status: 'ready' });
    expect(set.body.updated_at).not.toBeNull();
    const stale = await call('PUT', state(connectors.everything), { body: { enabled: true }, headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.headers.etag).toBe(set.headers.etag);
    expect((await call('GET', state(connectors.everything))).headers.etag).toBe(set.headers.etag);
    const cleared = await call('DELETE', state(connectors.everything), { headers: { 'if-match': '*' } });
    expect(cleared.status).toBe(204);
    expect((await call('GET', state(connectors.everything))).body).toMatchObject({ enabled: true, updated_at: null });

    // two writes sent with the same ETag at once: the second to take the lock finds it stale
    const current = String((await call('GET', state(connectors.everything))).headers.etag);
    const raced = await Promise.all([false, true, false].map((enabled) => call('PUT', state(connectors.everything), { body: { enabled }, headers: { 'if-match': current } })));
    expect(raced.map((answer) => answer.status).sort()).toEqual([200, 412, 412]);
    expect((await call('DELETE', state(connectors.everything), { headers: { 'if-match': '*' } })).status).toBe(204);

    const exchange = await call('GET', state(connectors.exchange));
    expect(exchange.body).toMatchObject({ enabled: true, connection_status: 'needs_auth' });
    const refused = await call<{ error: string }>('PUT', state(connectors.exchange), { body: { enabled: false }, headers: { 'if-match': '*' } });
    expect(refused.status).toBe(501);
    expect(refused.body.error).toMatch(/Exchange/);
    expect((await call('DELETE', state(connectors.exchange), { headers: { 'if-match': '*' } })).status).toBe(501);
    expect((await call('GET', state(connectors.everything), { token: tokens.bob })).status).toBe(404);
  });

  it('calls an upstream with the caller\u2019s own JWT (upstream_inject) or one exchanged for it (token_exchange); a key has neither', async () => {
    const endpoint = await startFakeTokenEndpoint({ id: 'gateway', secret: 'value-of-api-key' });
    const injected = await startGuardedMcpServer('Authorization', `Bearer ${tokens.alice}`);
    const exchanged = await startGuardedMcpServer('Authorization', (received) => /^Bearer issued-\d+$/.test(received ?? ''));
    try {
      const idp = await platform.call<{ id: string }>('POST', '/v1/connector-identity-providers', {
        token: tokens.admin,
        body: { name: 'Company SSO', provider_type: 'oidc', oidc_config: { issuer_url: provider.issuer, client_id: 'toolyard', token_endpoint_auth_method: 'none', allow_private_ips: true } },
      });
      expect(idp.status, idp.text).toBe(201);
      const secrets = await platform.call<Page<ManagedSecret>>('GET', '/v1/managed-secrets', { token: tokens.admin });
      const inject = await createConnector({ name: 'Injected', endpoint: `${injected.url}/mcp`, auth: { type: 'upstream_inject', upstream_inject: { provider_id: idp.body.id } } });
      const exchange = await createConnector({
        name: 'Exchanged',
        endpoint: `${exchanged.url}/mcp`,
        auth: {
          type: 'token_exchange',
          token_exchange: { token_url: endpoint.url, client_id: 'gateway', client_secret: { managed_secret_id: secrets.body.items[0]?.id }, provider_id: idp.body.id, audience: 'mcp', scopes: ['tools'] },
        },
      });
      const mine = await group('sso users', [users.alice]);
      for (const connector of [inject, exchange]) await grant(connector, [mine]);

      const alice = await client(bearer(tokens.alice));
      expect((await alice.callTool({ name: 'injected__ping', arguments: {} })).content).toEqual([{ type: 'text', text: 'pong' }]);
      expect((await alice.callTool({ name: 'exchanged__ping', arguments: {} })).content).toEqual([{ type: 'text', text: 'pong' }]);
      expect(endpoint.received.map((received) => received.form.subject_token)).toContain(tokens.alice);
      expect(endpoint.received.at(-1)).toMatchObject({ basic: { clientId: 'gateway', secret: 'value-of-api-key' }, form: { audience: 'mcp', scope: 'tools' } });

      const viaKey = await client(bearer(aliceKey));
      expect((await rpcError(viaKey.callTool({ name: 'exchanged__ping', arguments: {} }))).code).toBe(-32000);
      expect((await rpcError(viaKey.callTool({ name: 'injected__ping', arguments: {} }))).code).toBe(-32000);
    } finally {
      await Promise.all([endpoint.close(), injected.close(), exchanged.close()]);
    }
  });

  it('applies a connector update at once: the renamed prefix is served and the old one is unknown', async () => {
    const renamed = await platform.call<Connector>('PUT', `/v1/gateways/default/connectors/${connectors.guarded.id}`, {
      token: tokens.admin,
      body: { name: 'Guarded Two', endpoint: `${guarded.url}/mcp`, transport: 'streamable-http', allow_private_ips: true, auth: { type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value: { managed_secret_id: (await platform.call<Page<ManagedSecret>>('GET', '/v1/managed-secrets', { token: tokens.admin })).body.items[0]?.id } } } },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const alice = await client(bearer(tokens.alice));
    const names = (await alice.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('guarded_two__ping');
    expect(names).not.toContain('guarded__ping');
    expect((await rpcError(alice.callTool({ name: 'guarded__ping', arguments: {} }))).code).toBe(-32602);
    expect((await alice.callTool({ name: 'guarded_two__ping', arguments: {} })).content).toEqual([{ type: 'text', text: 'pong' }]);
  });

  it('decides a call under a document policy by the tool\u2019s hints, as the caller\u2019s listing gives them', async () => {
    // the last test: the connector keeps the document
    const connector = connectors.everything;
    const members = await group('hinted', [users.alice]);
    // the new membership reaches the decisions through the change feed
    await platform.changes.check();
    const policy = `/v1/connectors/${connector.id}/policy`;
    expect((await platform.call('POST', `${policy}/document-mode`, { token: tokens.admin })).status).toBe(200);
    const document = `permit (principal in Toolyard::Group::"${members}", action in Toolyard::Action::"use_connector", resource in Toolyard::Connector::"${connector.id}");
forbid (principal, action == Toolyard::Action::"call_tool", resource) unless { resource.read_only_hint };`;
    const set = await platform.call('PUT', `${policy}/document`, { token: tokens.admin, body: { document } });
    expect(set.status, set.text).toBe(200);
    const alice = await client(bearer(tokens.alice));
    // echo is marked read-only upstream; toggle-simulated-logging is not
    expect((await alice.callTool({ name: 'everything__echo', arguments: { message: 'read only' } })).content).toEqual([{ type: 'text', text: 'Echo: read only' }]);
    const refused = await rpcError(alice.callTool({ name: 'everything__toggle-simulated-logging', arguments: {} }));
    expect(refused.code).toBe(-32003);
    expect(refused.message).toMatch(/call_tool on "toggle-simulated-logging"/);
  });
});
