import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { ConnectorPolicy } from '../../src/platform/connector-policies/schemas.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { Group, Page, User } from '../../src/platform/directory/schemas.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type CallOptions, type TestPlatform } from './helpers.js';

type Answer = ConnectorPolicy & { error: string };
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const statement = (groupId: string, connectorId: string) =>
  `@id("group:${groupId}") permit (principal in Toolyard::Group::"${groupId}", action in Toolyard::Action::"use_connector", resource in Toolyard::Connector::"${connectorId}");`;

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('connector policies (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  const tokens = { admin: '', connector: '', auditor: '', alice: '', bob: '' };
  const users = { alice: '', bob: '' };
  const groups = { parent: { id: '', name: 'engineering' }, child: { id: '', name: 'backend' }, other: { id: '', name: 'aardvarks' } };
  let serial = 0;

  const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, options: CallOptions = {}) => platform.call<Answer>(method, url, { token: tokens.connector, ...options });
  const policyPath = (id: string) => `/v1/connectors/${id}/policy`;
  const createConnector = async (gateway = 'default', name = 'Policy'): Promise<Connector> => {
    serial += 1;
    const response = await platform.call<Connector>('POST', `/v1/gateways/${gateway}/connectors`, {
      token: tokens.connector,
      body: { name: `${name} ${String(serial)}`, endpoint: `https://mcp.example.invalid/${String(serial)}`, transport: 'streamable-http', auth: { type: 'none' } },
    });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const etagOf = async (id: string) => {
    const response = await call('GET', policyPath(id));
    expect(response.status, response.text).toBe(200);
    return String(response.headers.etag);
  };
  const grant = async (id: string, groupIds: string[]) => {
    const response = await call('PUT', `${policyPath(id)}/groups`, { body: { group_ids: groupIds }, headers: { 'if-match': '*' } });
    expect(response.status, response.text).toBe(200);
    return response;
  };
  const toDocument = async (id: string, document: string) => {
    expect((await call('POST', `${policyPath(id)}/document-mode`)).status).toBe(200);
    const response = await call('PUT', `${policyPath(id)}/document`, { body: { document } });
    expect(response.status, response.text).toBe(200);
  };
  const userId = async (userName: string, token: string) => {
    // the first own-data request provisions the user just in time
    expect((await platform.call('GET', '/v1/gateways', { token })).status).toBe(200);
    const found = await platform.call<Page<User>>('GET', `/v1/users?user_name=${userName}`, { token: tokens.admin });
    const id = found.body.items[0]?.id;
    if (id === undefined) throw new Error(`no user ${userName}`);
    return id;
  };
  const member = async (method: 'POST' | 'DELETE', groupId: string, kind: 'users' | 'subgroups', memberId: string) => {
    const response = await platform.call(method, `/v1/groups/${groupId}/${kind}/${memberId}`, { token: tokens.admin });
    expect(response.status, response.text).toBe(200);
    await platform.changes.check();
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({
      target,
      config: { auth: oauthWith(provider), connectorGateway: { gateways: [{ id: 'default', name: 'Default' }, { id: 'eu', name: 'EU' }] } },
    });
    await platform.changes.check();
    const exp = nowSeconds() + 3600;
    tokens.admin = await provider.mint({ sub: 'root', exp, claims: { roles: ['admin'] } });
    tokens.connector = await provider.mint({ sub: 'connie', exp, claims: { roles: ['connectorAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp, claims: { preferred_username: 'alice', email: 'alice@example.com' } });
    tokens.bob = await provider.mint({ sub: 'bob', exp, claims: { preferred_username: 'bob' } });
    users.alice = await userId('alice', tokens.alice);
    users.bob = await userId('bob', tokens.bob);
    for (const group of Object.values(groups)) {
      const created = await platform.call<Group>('POST', '/v1/groups', { token: tokens.admin, body: { name: group.name } });
      expect(created.status, created.text).toBe(201);
      group.id = created.body.id;
    }
    // alice is in backend, backend in engineering
    await member('POST', groups.child.id, 'users', users.alice);
    await member('POST', groups.parent.id, 'subgroups', groups.child.id);
  }, 60_000);
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('gives a new connector a structured policy with no group, every field present and an ETag', async () => {
    const connector = await createConnector();
    const response = await call('GET', policyPath(connector.id), { token: tokens.auditor });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ connector_id: connector.id, document: '', granted_user_groups: [], mode: 'structured' });
    expect(response.headers.etag).toMatch(/^"[0-9a-f]+"$/);
  });

  it('needs a token (401), connectorAdmin or auditor to read (403) and connectorAdmin to write (403)', async () => {
    const connector = await createConnector();
    expect((await call('GET', policyPath(connector.id), { token: '' })).status).toBe(401);
    expect((await platform.call('GET', policyPath(connector.id))).status).toBe(401);
    expect((await call('GET', policyPath(connector.id), { token: tokens.alice })).status).toBe(403);
    const write = await call('PUT', `${policyPath(connector.id)}/groups`, { token: tokens.auditor, body: { group_ids: [] }, headers: { 'if-match': '*' } });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatch(/connectorAdmin/);
    expect((await call('POST', `${policyPath(connector.id)}/document-mode`, { token: tokens.alice })).status).toBe(403);
  });

  it('answers 404 for an unknown connector and 400 for a non-UUID id', async () => {
    expect((await call('GET', policyPath(UNKNOWN))).status).toBe(404);
    expect((await call('PUT', `${policyPath(UNKNOWN)}/groups`, { body: { group_ids: [] }, headers: { 'if-match': '*' } })).status).toBe(404);
    expect((await call('POST', `${policyPath(UNKNOWN)}/structured-mode`)).status).toBe(404);
    expect((await call('GET', policyPath('not-a-uuid'))).status).toBe(400);
  });

  it('replaces the granted groups: by name then id, one statement each, with a new ETag', async () => {
    const connector = await createConnector();
    const etag = await etagOf(connector.id);
    const response = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [groups.parent.id, groups.other.id] }, headers: { 'if-match': etag } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      connector_id: connector.id,
      document: `${statement(groups.other.id, connector.id)}\n${statement(groups.parent.id, connector.id)}`,
      granted_user_groups: [groups.other, groups.parent],
      mode: 'structured',
    });
    expect(response.headers.etag).not.toBe(etag);
    expect(await etagOf(connector.id)).toBe(response.headers.etag);
    const cleared = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [] }, headers: { 'if-match': String(response.headers.etag) } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ document: '', granted_user_groups: [] });
  });

  it('requires If-Match to replace groups (428) and answers 412 with the current ETag when it is stale', async () => {
    const connector = await createConnector();
    const missing = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [groups.parent.id] } });
    expect(missing.status).toBe(428);
    expect(missing.body.error).toMatch(/If-Match/);
    const current = await etagOf(connector.id);
    const stale = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [groups.parent.id] }, headers: { 'if-match': '"0123456789abcdef"' } });
    expect(stale.status).toBe(412);
    expect(stale.headers.etag).toBe(current);
    const revoke = await call('DELETE', `${policyPath(connector.id)}/groups/${groups.parent.id}`, { headers: { 'if-match': '"0123456789abcdef"' } });
    expect(revoke.status).toBe(412);
    expect((await call('POST', `${policyPath(connector.id)}/document-mode`, { headers: { 'if-match': '"stale"' } })).status).toBe(412);
    expect((await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [groups.parent.id] }, headers: { 'if-match': current } })).status).toBe(200);
  });

  it('refuses malformed group ids (400), more than 1000 (413, before looking anything up) and unknown groups (422 naming them)', async () => {
    const connector = await createConnector();
    const headers = { 'if-match': '*' };
    const malformed = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: ['nope'] }, headers });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/group_ids/);
    expect((await call('PUT', `${policyPath(connector.id)}/groups`, { body: { groups: [] }, headers })).status).toBe(400);
    const many = Array.from({ length: 1001 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
    const tooMany = await call('PUT', `${policyPath(UNKNOWN)}/groups`, { body: { group_ids: many }, headers });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error).toMatch(/1000/);
    const unknown = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [groups.parent.id, UNKNOWN] }, headers });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toContain(UNKNOWN);
    expect((await call('GET', policyPath(connector.id))).body.granted_user_groups).toEqual([]);
  });

  it('revokes a granted group, with or without If-Match, and answers 404 for a group it does not grant', async () => {
    const connector = await createConnector();
    const granted = await grant(connector.id, [groups.parent.id, groups.other.id]);
    const revoked = await call('DELETE', `${policyPath(connector.id)}/groups/${groups.other.id}`, { headers: { 'if-match': String(granted.headers.etag) } });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.granted_user_groups).toEqual([groups.parent]);
    expect((await call('DELETE', `${policyPath(connector.id)}/groups/${groups.parent.id}`)).body.granted_user_groups).toEqual([]);
    const notGranted = await call('DELETE', `${policyPath(connector.id)}/groups/${groups.parent.id}`);
    expect(notGranted.status).toBe(404);
    expect(notGranted.body.error).toContain(groups.parent.id);
  });

  it('switches to document mode with the structured text, freezes the groups, and regenerates the text back in structured mode', async () => {
    const connector = await createConnector();
    const structured = await grant(connector.id, [groups.parent.id]);
    const toDocumentMode = await call('POST', `${policyPath(connector.id)}/document-mode`, { headers: { 'if-match': String(structured.headers.etag) } });
    expect(toDocumentMode.status).toBe(200);
    expect(toDocumentMode.body).toEqual({ ...structured.body, mode: 'document' });
    const again = await call('POST', `${policyPath(connector.id)}/document-mode`);
    expect(again.status).toBe(200);
    expect(again.headers.etag).toBe(toDocumentMode.headers.etag);

    const frozen = await call('PUT', `${policyPath(connector.id)}/groups`, { body: { group_ids: [] }, headers: { 'if-match': '*' } });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error).toMatch(/document mode/);
    expect((await call('DELETE', `${policyPath(connector.id)}/groups/${groups.parent.id}`)).status).toBe(409);

    const document = 'forbid (principal, action, resource);';
    const set = await call('PUT', `${policyPath(connector.id)}/document`, { body: { document }, headers: { 'if-match': String(again.headers.etag) } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ connector_id: connector.id, document, granted_user_groups: [groups.parent], mode: 'document' });

    const back = await call('POST', `${policyPath(connector.id)}/structured-mode`);
    expect(back.status).toBe(200);
    expect(back.body).toEqual(structured.body);
    const refused = await call('PUT', `${policyPath(connector.id)}/document`, { body: { document } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/structured mode/);
  });

  it("refuses a document over 64 KiB (413) and one that does not parse, does not validate or is a template (422, the validator's messages)", async () => {
    const connector = await createConnector();
    expect((await call('POST', `${policyPath(connector.id)}/document-mode`)).status).toBe(200);
    const put = (document: string) => call('PUT', `${policyPath(connector.id)}/document`, { body: { document } });
    const large = await put(`// ${'x'.repeat(64 * 1024)}\npermit (principal, action, resource);`);
    expect(large.status).toBe(413);
    expect((await put(`permit (principal, action, resource);${' '.repeat(64 * 1024 - 40)}`)).status).toBe(200);
    const parse = await put('permit (principal, action, resource');
    expect(parse.status).toBe(422);
    expect(parse.body.error).toMatch(/^document: .*unexpected end of input/);
    const invalid = await put('permit (principal, action, resource) when { resource.owner == "x" };\npermit (principal is Toolyard::Tool, action, resource);');
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toMatch(/attribute `owner`.*not found; /);
    const template = await put('permit (principal == ?principal, action, resource);');
    expect(template.status).toBe(422);
    expect(template.body.error).toMatch(/template/);
    expect((await call('GET', policyPath(connector.id))).body.document).toMatch(/^permit \(principal, action, resource\);/);
  });

  it('audits every write', async () => {
    const connector = await createConnector();
    await grant(connector.id, [groups.parent.id]);
    const events = await platform.call<{ events: { action: string; target_id: string }[] }>('GET', `/v1/audit-events?target_id=${connector.id}&target_type=connector_policy`, { token: tokens.admin });
    expect(events.status, events.text).toBe(200);
    expect(events.body.events.map((event) => event.action)).toEqual(['connector_policy.groups.replace']);
  });

  it('drops the policy with its connector', async () => {
    const connector = await createConnector();
    await grant(connector.id, [groups.parent.id]);
    expect((await platform.call('DELETE', `/v1/gateways/default/connectors/${connector.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await call('GET', policyPath(connector.id))).status).toBe(404);
  });

  describe('decisions', () => {
    const decisions = () => platform.features.decisions;
    const tools = [{ name: 'read', readOnlyHint: true, destructiveHint: false }, { name: 'remove' }, { name: 'write', destructiveHint: false }];

    it('denies by default and grants the members of a granted group, nested ones too (structured)', async () => {
      const connector = await createConnector();
      expect(await decisions().canUse(users.alice, connector)).toBe(false);
      expect(await decisions().allowedTools(users.alice, connector, tools)).toEqual(new Set());
      await grant(connector.id, [groups.parent.id]);
      expect(await decisions().canUse(users.alice, connector)).toBe(true);
      expect(await decisions().canUse(users.bob, connector)).toBe(false);
      expect(await decisions().canUse(UNKNOWN, connector)).toBe(false);
      expect(await decisions().allowedTools(users.alice, connector, tools)).toEqual(new Set(['read', 'remove', 'write']));
      expect(await decisions().allowedTools(users.bob, connector, tools)).toEqual(new Set());
      // one call: structured statements read no hints, so none are asked for
      let asked = 0;
      const hints = () => {
        asked += 1;
        return Promise.resolve({ name: 'remove' });
      };
      expect(await decisions().mayCallTool(users.alice, connector, 'remove', hints)).toBe(true);
      expect(await decisions().mayCallTool(users.bob, connector, 'remove', hints)).toBe(false);
      expect(asked).toBe(0);
    });

    it('decides a document through Cedar: nested groups, forbid on a tool (with the MCP hint defaults) and on the connector win', async () => {
      const connector = await createConnector();
      await toDocument(connector.id, `${statement(groups.parent.id, connector.id)}
forbid (principal, action == Toolyard::Action::"call_tool", resource) when { resource.destructive_hint && context.environment == "production" };`);
      expect(await decisions().canUse(users.alice, connector)).toBe(true);
      expect(await decisions().canUse(users.bob, connector)).toBe(false);
      // "remove" has no hints: destructive by default
      expect(await decisions().allowedTools(users.alice, connector, tools)).toEqual(new Set(['read', 'write']));
      // one call: the document reads the tool's hints
      expect(await decisions().mayCallTool(users.alice, connector, 'read', () => Promise.resolve(tools[0] ?? { name: 'read' }))).toBe(true);
      expect(await decisions().mayCallTool(users.alice, connector, 'read', () => Promise.resolve({ name: 'read' }))).toBe(false);
      expect(await decisions().allowedTools(users.bob, connector, tools)).toEqual(new Set());
      // answers are remembered, and forgotten when the membership changes
      await member('POST', groups.child.id, 'users', users.bob);
      expect(await decisions().canUse(users.bob, connector)).toBe(true);
      expect(await decisions().allowedTools(users.bob, connector, tools)).toEqual(new Set(['read', 'write']));
      await member('DELETE', groups.child.id, 'users', users.bob);
      expect(await decisions().canUse(users.bob, connector)).toBe(false);

      await toDocument(connector.id, `permit (principal in Toolyard::Group::"${groups.child.id}", action, resource);
forbid (principal, action == Toolyard::Action::"use_connector", resource == Toolyard::Connector::"${connector.id}") when { principal.user_name == "alice" };`);
      expect(await decisions().canUse(users.alice, connector)).toBe(false);
    });

    it('applies a membership change and a policy write from the next decision', async () => {
      const connector = await createConnector();
      await grant(connector.id, [groups.parent.id]);
      expect(await decisions().canUse(users.bob, connector)).toBe(false);
      await member('POST', groups.child.id, 'users', users.bob);
      expect(await decisions().canUse(users.bob, connector)).toBe(true);
      await member('DELETE', groups.parent.id, 'subgroups', groups.child.id);
      expect(await decisions().canUse(users.bob, connector)).toBe(false);
      expect(await decisions().canUse(users.alice, connector)).toBe(false);
      await member('POST', groups.parent.id, 'subgroups', groups.child.id);
      await member('DELETE', groups.child.id, 'users', users.bob);
      expect(await decisions().canUse(users.alice, connector)).toBe(true);
      await grant(connector.id, [groups.other.id]);
      expect(await decisions().canUse(users.alice, connector)).toBe(false);
    });
  });

  describe('visible to me', () => {
    type ConnectorPage = { items: Connector[]; next_cursor?: string; prev_cursor?: string; error: string };
    const mine = (url: string, token = tokens.alice) => platform.call<ConnectorPage & Connector>('GET', `/v1/me/gateways${url}`, { token });

    it('lists only the connectors my groups may use, by name, paged both ways', async () => {
      const made: Connector[] = [];
      for (const name of ['delta', 'alpha', 'echo', 'bravo', 'charlie']) made.push(await createConnector('eu', name));
      const byName = Object.fromEntries(made.map((connector) => [connector.name.split(' ')[0] ?? '', connector]));
      for (const name of ['alpha', 'charlie', 'echo']) await grant(byName[name]?.id ?? '', [groups.parent.id]);
      await grant(byName.bravo?.id ?? '', [groups.other.id]);
      const all = await mine('/eu/connectors');
      expect(all.status, all.text).toBe(200);
      expect(all.body.items.map((connector) => connector.id)).toEqual(['alpha', 'charlie', 'echo'].map((name) => byName[name]?.id));
      expect(all.body.next_cursor).toBeUndefined();
      expect((await mine('/eu/connectors', tokens.bob)).body.items).toEqual([]);

      const first = await mine('/eu/connectors?limit=1');
      expect(first.body.items.map((connector) => connector.id)).toEqual([byName.alpha?.id]);
      expect(first.body.prev_cursor).toBeUndefined();
      const second = await mine(`/eu/connectors?limit=1&cursor=${first.body.next_cursor ?? ''}`);
      expect(second.body.items.map((connector) => connector.id)).toEqual([byName.charlie?.id]);
      const third = await mine(`/eu/connectors?limit=1&cursor=${second.body.next_cursor ?? ''}`);
      expect(third.body.items.map((connector) => connector.id)).toEqual([byName.echo?.id]);
      expect(third.body.next_cursor).toBeUndefined();
      const back = await mine(`/eu/connectors?limit=1&before=${third.body.prev_cursor ?? ''}`);
      expect(back.body.items.map((connector) => connector.id)).toEqual([byName.charlie?.id]);
      expect((await mine(`/eu/connectors?cursor=${first.body.next_cursor ?? ''}&before=${first.body.next_cursor ?? ''}`)).status).toBe(400);
      expect((await mine('/eu/connectors?cursor=garbage')).status).toBe(400);
    });

    it('gets a visible connector, 403 for an invisible one, 404 for an unknown one or gateway, 401 without a token', async () => {
      const visible = await createConnector();
      const hidden = await createConnector();
      await grant(visible.id, [groups.child.id]);
      const got = await mine(`/default/connectors/${visible.id}`);
      expect(got.status, got.text).toBe(200);
      expect(got.body).toEqual(visible);
      const forbidden = await mine(`/default/connectors/${hidden.id}`);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error).toMatch(/not visible/);
      expect((await mine(`/default/connectors/${visible.id}`, tokens.bob)).status).toBe(403);
      expect((await mine(`/default/connectors/${UNKNOWN}`)).status).toBe(404);
      expect((await mine(`/eu/connectors/${visible.id}`)).status).toBe(404);
      expect((await mine(`/nowhere/connectors`)).status).toBe(404);
      expect((await mine(`/default/connectors/not-a-uuid`)).status).toBe(400);
      expect((await platform.call('GET', `/v1/me/gateways/default/connectors/${visible.id}`)).status).toBe(401);
      expect((await platform.call('GET', '/v1/me/gateways/default/connectors')).status).toBe(401);
    });
  });
});
