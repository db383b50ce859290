import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { Group, Page, User } from '../../src/platform/directory/schemas.js';
import { startEverything, type RunningUpstream } from '../../src/runtime/proxy/reverse-proxy-testing.js';
import { nowSeconds } from '../helpers/oidc-provider.js';
import { bearer, connectAs, recordsOf } from './connector-gateway-testing.js';
import { settledRecords, startGatewayFixture, type GatewayFixture } from './llm-gateway-testing.js';

const POLICIES = '/ai-gateway/v1/policies';

interface ChatAnswer {
  status: number;
  /** The usage event's id (X-Request-Id). */
  id: string;
  message: string;
  code: string | undefined;
}

/** PLATFORM-API Part 5 rules 16 and 17: both gateways enforce the AI policies naming the server's gateway. */
describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('AI policy enforcement (%s)', (_name, target) => {
  let fixture: GatewayFixture;
  let everything: RunningUpstream;
  const tokens = { alice: '', bob: '', admin: '' };
  const keys = { alice: '', bob: '' };
  const connectors: Record<'alpha' | 'beta', Connector> = {} as never;
  const clients: Client[] = [];

  const admin = <T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    fixture.platform.call<T>(method, url, { token: tokens.admin, ...(body !== undefined && { body }), headers });
  const openai = (credential: string) => new OpenAI({ apiKey: credential, baseURL: `${fixture.base}/llm/v1`, maxRetries: 0 });
  const chat = (credential: string) =>
    openai(credential)
      .chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse()
      .then(
        ({ response }): ChatAnswer => ({ status: response.status, id: response.headers.get('x-request-id') ?? '', message: '', code: undefined }),
        (error: unknown): ChatAnswer => {
          if (!(error instanceof OpenAI.APIError)) throw error;
          const failed = error as { status: number | undefined; headers: Headers | undefined; message: string; error: unknown };
          return { status: failed.status ?? 0, id: failed.headers?.get('x-request-id') ?? '', message: failed.message, code: (failed.error as { code?: string } | undefined)?.code };
        },
      );
  const models = async (credential: string) => (await openai(credential).models.list()).data.map((model) => model.id);
  const client = async (credential: string) => {
    const connected = await connectAs(fixture.base, bearer(credential));
    clients.push(connected);
    return connected;
  };
  const toolNames = async (credential: string) => (await (await client(credential)).listTools()).tools.map((tool) => tool.name);
  const prefixes = async (credential: string) => [...new Set((await toolNames(credential)).map((name) => name.split('__')[0]))].sort();
  const createPolicy = async (name: string, spec: Record<string, unknown>) => {
    const created = await admin('POST', POLICIES, { metadata: { name }, spec: { gatewayRef: { name: 'toolyard' }, ...spec } });
    expect(created.status, created.text).toBe(201);
  };
  const patchPolicy = async (name: string, patch: unknown) => {
    const patched = await fixture.platform.call('PATCH', `${POLICIES}/${name}`, {
      token: tokens.admin,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': '*' },
      body: JSON.stringify(patch),
    });
    expect(patched.status, patched.text).toBe(200);
  };
  const deletePolicy = async (name: string) => expect((await admin('DELETE', `${POLICIES}/${name}`, undefined, { 'if-match': '*' })).status).toBe(204);

  beforeAll(async () => {
    everything = await startEverything('streamableHttp');
    fixture = await startGatewayFixture({ target });
    const exp = nowSeconds() + 3600;
    // the token's groups claim is what policies match for a token; a key's caller matches its owner's directory groups
    tokens.alice = await fixture.provider.mint({ sub: 'alice', exp, claims: { preferred_username: 'alice', groups: ['eng'] } });
    tokens.bob = await fixture.provider.mint({ sub: 'bob', exp, claims: { preferred_username: 'bob', groups: ['sales'] } });
    tokens.admin = fixture.tokens.admin;
    for (const who of ['alice', 'bob'] as const) {
      const key = await fixture.platform.call<{ secret: string }>('POST', '/v1/me/keys', { token: tokens[who], body: { name: 'enforcement' } });
      expect(key.status, key.text).toBe(201);
      keys[who] = key.body.secret;
    }
    const users = await admin<Page<User>>('GET', '/v1/users?user_name=alice');
    const eng = await admin<Group>('POST', '/v1/groups', { name: 'eng' });
    expect((await admin('POST', `/v1/groups/${eng.body.id}/users/${users.body.items[0]?.id ?? ''}`)).status).toBe(200);
    const everyone = await admin<Group>('POST', '/v1/groups', { name: 'everyone' });
    for (const who of ['alice', 'bob']) {
      const user = await admin<Page<User>>('GET', `/v1/users?user_name=${who}`);
      expect((await admin('POST', `/v1/groups/${everyone.body.id}/users/${user.body.items[0]?.id ?? ''}`)).status).toBe(200);
    }
    const endpoint = `http://127.0.0.1:${String(everything.port)}/mcp`;
    for (const [which, name, url] of [['alpha', 'Alpha', endpoint], ['beta', 'Beta', `${endpoint}?copy=beta`]] as const) {
      const created = await admin<Connector>('POST', '/v1/gateways/default/connectors', { name, endpoint: url, transport: 'streamable-http', auth: { type: 'none' }, allow_private_ips: true });
      expect(created.status, created.text).toBe(201);
      connectors[which] = created.body;
      const granted = await admin('PUT', `/v1/connectors/${created.body.id}/policy/groups`, { group_ids: [everyone.body.id] }, { 'if-match': '*' });
      expect(granted.status, granted.text).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((connected) => connected.close()));
    await fixture.close();
    await everything.stop();
  });

  it('leaves the gateway open while no policy names it, a policy of another gateway included', async () => {
    await createPolicy('elsewhere', { gatewayRef: { name: 'other-gateway' }, principalMatchers: [{ claims: { groups: 'eng' } }] });
    const answer = await chat(tokens.bob);
    expect(answer.status).toBe(200);
    const { event } = await settledRecords(fixture, answer.id);
    expect(event?.ai_policy).toEqual({ decision: 'allowed', policies: [] });
    expect(await models(tokens.bob)).toContain('gpt-test');
    expect(await prefixes(tokens.bob)).toEqual(['alpha', 'beta']);
    await deletePolicy('elsewhere');
  });

  it('admits at the LLM gateway only callers a policy matches, by token claims or by a key owner\u2019s directory record, and records the decision', async () => {
    await createPolicy('eng-tools', { principalMatchers: [{ claims: { groups: 'eng' } }], mcpPolicy: { servers: ['Alpha'] } });

    const allowed = await chat(tokens.alice);
    expect(allowed.status).toBe(200);
    expect((await settledRecords(fixture, allowed.id)).event).toMatchObject({ outcome: 'delivered', ai_policy: { decision: 'allowed', policies: ['eng-tools'] } });
    expect((await chat(keys.alice)).status).toBe(200);

    const denied = await chat(tokens.bob);
    expect(denied.status).toBe(403);
    expect(denied.code).toBe('model_not_allowed');
    expect(denied.message).toContain('toolyard');
    const { event, charges } = await settledRecords(fixture, denied.id);
    expect(event).toMatchObject({ outcome: 'blocked_downstream', upstream_status: 0, ai_policy: { decision: 'denied', policies: [] } });
    expect(charges).toEqual([]);
    expect((await chat(keys.bob)).status).toBe(403);

    expect(await models(tokens.bob)).toEqual([]);
    expect(await models(keys.alice)).toContain('gpt-test');
  });

  it('hides at the connector gateway what the matched policies do not list, and refuses its calls as denied by policy', async () => {
    expect(await prefixes(tokens.alice)).toEqual(['alpha']);
    expect(await prefixes(tokens.bob)).toEqual([]);

    const refused = await (await client(tokens.alice)).callTool({ name: 'beta__echo', arguments: { message: 'hi' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32003);
    expect((refused as McpError).message).toMatch(/AI polic/);
    const callId = /call id ([0-9a-f-]{36})/.exec((refused as McpError).message)?.[1] ?? '';
    expect(await recordsOf(fixture.platform, tokens.alice, connectors.beta.id, callId)).toMatchObject([{ decision: 'denied', billable: false, billable_reason: 'denied_by_policy' }]);

    const delivered = await (await client(tokens.alice)).callTool({ name: 'alpha__echo', arguments: { message: 'hi' } });
    expect(delivered.isError).not.toBe(true);

    const rest = (connector: Connector, token: string) => fixture.platform.call('GET', `/connector-gateway/v1/connectors/${connector.id}/tools`, { token });
    expect((await rest(connectors.alpha, tokens.alice)).status).toBe(200);
    expect((await rest(connectors.beta, tokens.alice)).status).toBe(404);
    expect((await fixture.platform.call('GET', `/connector-gateway/v1/connectors/${connectors.beta.id}/state`, { token: tokens.alice })).status).toBe(404);
    expect((await rest(connectors.alpha, tokens.bob)).status).toBe(404);
  });

  it('applies a patch and a delete on the writing replica before they answer', async () => {
    await patchPolicy('eng-tools', { spec: { mcpPolicy: { servers: ['*'] } } });
    expect(await prefixes(keys.alice)).toEqual(['alpha', 'beta']);

    await patchPolicy('eng-tools', { spec: { principalMatchers: [{ claims: { groups: 'eng' } }, { claims: { sub: 'bob' } }] } });
    expect((await chat(tokens.bob)).status).toBe(200);

    await deletePolicy('eng-tools');
    const open = await chat(tokens.bob);
    expect(open.status).toBe(200);
    expect((await settledRecords(fixture, open.id)).event?.ai_policy).toEqual({ decision: 'allowed', policies: [] });
  });
});
