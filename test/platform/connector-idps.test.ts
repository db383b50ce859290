import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { IdentityProvider } from '../../src/platform/connector-idps/schemas.js';
import type { ManagedSecret } from '../../src/platform/secrets/schemas.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, tempFile, type TestPlatform } from './helpers.js';

type Page = { items: IdentityProvider[]; next_cursor?: string; prev_cursor?: string };
type AuditEvents = { events: { action: string; before: unknown; after: unknown }[] };
const IDPS = '/v1/connector-identity-providers';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const KEY = 'u4xQp0yq8m0wz5g0m5xH1cYV9p0kqZ0m8yB2nQ3rV1s=';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('connector identity providers (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  const tokens = { connector: '', auditor: '', admin: '', alice: '' };
  const secretIds: Record<string, string> = {};

  const post = (body: unknown, token = tokens.connector) => platform.call<IdentityProvider & { error: string }>('POST', IDPS, { token, body });
  const create = async (body: Record<string, unknown>) => {
    const response = await post(body);
    expect(response.status, response.text).toBe(201);
    return response.body as IdentityProvider;
  };
  const oauth2 = (name: string, config: Record<string, unknown> = {}) => ({
    name,
    provider_type: 'oauth2',
    oauth2_config: { authorization_endpoint: 'https://auth.example.com/authorize', token_endpoint: 'https://auth.example.com/token', client_id: 'toolyard', ...config },
  });
  const oidc = (name: string, config: Record<string, unknown> = {}) => ({ name, provider_type: 'oidc', oidc_config: { issuer_url: 'https://login.example.com', client_id: 'toolyard', ...config } });
  const error = async (body: unknown, status = 400) => {
    const response = await post(body);
    expect(response.status, response.text).toBe(status);
    return response.body.error;
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({ target, config: { auth: oauthWith(provider), secrets: { keyFile: await tempFile('secrets.key', KEY) } } });
    const exp = nowSeconds() + 3600;
    tokens.connector = await provider.mint({ sub: 'connie', exp, claims: { roles: ['connectorAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.admin = await provider.mint({ sub: 'root', exp, claims: { roles: ['admin'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    for (const name of ['client', 'initial', 'other']) {
      const response = await platform.call<ManagedSecret>('POST', '/v1/managed-secrets', { token: tokens.connector, body: { name, value: `value-of-${name}` } });
      expect(response.status, response.text).toBe(201);
      secretIds[name] = response.body.id;
    }
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('creates an OAuth 2.0 provider with every field present, defaults filled in and the secret as a reference', async () => {
    const response = await post(oauth2('GitHub', { client_secret: { managed_secret_id: secretIds.client }, scopes: ['repo', 'read:org'] }));
    expect(response.status, response.text).toBe(201);
    const created = response.body;
    expect(Object.keys(created)).toEqual(['created_at', 'id', 'name', 'oauth2_config', 'oidc_config', 'provider_type', 'registration_mode', 'source', 'updated_at']);
    expect(created).toMatchObject({ name: 'GitHub', provider_type: 'oauth2', oidc_config: null, registration_mode: 'static', source: 'api', updated_at: created.created_at });
    expect(created.oauth2_config).toEqual({
      authorization_endpoint: 'https://auth.example.com/authorize',
      token_endpoint: 'https://auth.example.com/token',
      client_id: 'toolyard',
      client_secret: { cluster_secret: null, managed_secret_id: secretIds.client },
      dcr: null,
      redirect_uri: null,
      scopes: ['repo', 'read:org'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(response.text).not.toContain('value-of-');
    const read = await platform.call<IdentityProvider>('GET', `${IDPS}/${created.id}`, { token: tokens.auditor });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
  });

  it('creates an OIDC provider that registers itself (dcr), with a cluster secret as initial access token', async () => {
    const created = await create({
      name: 'Entra',
      provider_type: 'oidc',
      oidc_config: {
        issuer_url: 'https://login.example.com/tenant/v2.0',
        dcr: { registration_endpoint: 'https://login.example.com/register', initial_access_token: { cluster_secret: { namespace: 'toolyard', name: 'entra-dcr', key: 'token' } }, software_id: 'toolyard' },
        additional_authorization_params: { prompt: 'consent' },
        redirect_uri: 'https://platform.example.com/oauth/callback',
      },
    });
    expect(created).toMatchObject({ provider_type: 'oidc', oauth2_config: null, registration_mode: 'dcr', source: 'api' });
    expect(created.oidc_config).toEqual({
      additional_authorization_params: { prompt: 'consent' },
      allow_private_ips: false,
      issuer_url: 'https://login.example.com/tenant/v2.0',
      subject_claim: 'sub',
      client_id: null,
      client_secret: null,
      dcr: {
        discovery_url: null,
        initial_access_token: { cluster_secret: { namespace: 'toolyard', name: 'entra-dcr', key: 'token' }, managed_secret_id: null },
        registration_endpoint: 'https://login.example.com/register',
        software_id: 'toolyard',
        software_statement: null,
      },
      redirect_uri: 'https://platform.example.com/oauth/callback',
      scopes: [],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const publicClient = await create(oidc('Public client'));
    expect(publicClient.oidc_config?.token_endpoint_auth_method).toBe('none');
  });

  it('refuses bodies that break the rules with 400 naming the field', async () => {
    expect(await error({ ...oidc('Mixed'), oauth2_config: oauth2('x').oauth2_config })).toBe('oauth2_config is not allowed when provider_type is oidc; send oidc_config');
    expect(await error({ ...oauth2('Mixed'), oidc_config: oidc('x').oidc_config })).toBe('oidc_config is not allowed when provider_type is oauth2; send oauth2_config');
    expect(await error({ name: 'Bare', provider_type: 'oidc' })).toBe('oidc_config: is required when provider_type is oidc');
    expect(await error({ ...oauth2('x'), registration_mode: 'static' })).toBe('body.registration_mode: read-only (dcr when a dcr block is set, else static); leave it out');
    expect(await error({ ...oauth2('x'), source: 'api' })).toBe('body.source: read-only (api for providers made through this API); leave it out');
    expect(await error({ ...oauth2('x'), id: UNKNOWN })).toMatch(/^body\.id: read-only/);
    expect(await error(oauth2('x', { client_id: undefined }))).toBe('oauth2_config.client_id: is required unless a dcr block registers the client');
    expect(await error(oauth2('x', { token_endpoint: undefined }))).toBe('body.oauth2_config.token_endpoint: is required');
    expect(await error({ name: 'x', provider_type: 'saml' })).toMatch(/^body\.provider_type: must be one of "oauth2", "oidc"/);
    expect(await error(oauth2('x', { token_endpoint_auth_method: 'private_key_jwt' }))).toMatch(/^body\.oauth2_config\.token_endpoint_auth_method: must be one of/);
    expect(await error(oauth2('x', { token_endpoint: '/token' }))).toBe('oauth2_config.token_endpoint: "/token" is not an absolute URL (like https://idp.example.com/token)');
    expect(await error(oidc('x', { issuer_url: 'ftp://login.example.com' }))).toBe('oidc_config.issuer_url: must be an http or https URL, not ftp:');
    expect(await error(oauth2('x', { client_secret: {} }))).toBe('oauth2_config.client_secret: set exactly one of cluster_secret or managed_secret_id');
    expect(await error(oauth2('x', { client_secret: { managed_secret_id: secretIds.client, cluster_secret: { namespace: 'a', name: 'b', key: 'c' } } }))).toBe(
      'oauth2_config.client_secret: set exactly one of cluster_secret or managed_secret_id',
    );
    expect(await error(oauth2('x', { client_secret: { value: 'plain' } }))).toBe('body.oauth2_config.client_secret.value: unknown field');
    expect(await error(oauth2('x', { client_secret: { managed_secret_id: UNKNOWN } }))).toBe(`oauth2_config.client_secret.managed_secret_id: no managed secret with id ${UNKNOWN}`);
    expect(await error(oidc('x', { dcr: { discovery_url: 'https://login.example.com/.well-known/openid-configuration', initial_access_token: { managed_secret_id: UNKNOWN } } }))).toBe(
      `oidc_config.dcr.initial_access_token.managed_secret_id: no managed secret with id ${UNKNOWN}`,
    );
    expect(await error(oauth2('x', { token_endpoint_auth_method: 'none', client_secret: { managed_secret_id: secretIds.client } }))).toMatch(/^oauth2_config\.client_secret: not used when token_endpoint_auth_method is none/);
    expect(await error(oauth2('x', { token_endpoint_auth_method: 'client_secret_post' }))).toMatch(/^oauth2_config\.client_secret: is required when token_endpoint_auth_method is client_secret_post/);
    expect(await error(oauth2('x', { client_id: undefined, dcr: {} }))).toMatch(/^oauth2_config\.dcr: set registration_endpoint or discovery_url/);
    expect((await platform.call<Page>('GET', `${IDPS}?limit=200`, { token: tokens.auditor })).body.items.map((item) => item.name)).not.toContain('x');
  });

  it('refuses OIDC URLs on private addresses unless allow_private_ips, and leaves OAuth 2.0 URLs alone', async () => {
    expect(await error(oidc('Local', { issuer_url: 'http://127.0.0.1:8080/realms/dev' }))).toBe(
      'oidc_config.issuer_url: http://127.0.0.1:8080/realms/dev is or resolves to the private address 127.0.0.1; set oidc_config.allow_private_ips: true to allow it',
    );
    expect(await error(oidc('Local', { dcr: { registration_endpoint: 'http://localhost/register' } }))).toMatch(/^oidc_config\.dcr\.registration_endpoint: http:\/\/localhost\/register is or resolves to the private address localhost/);
    const allowed = await create(oidc('Local', { issuer_url: 'http://127.0.0.1:8080/realms/dev', allow_private_ips: true }));
    expect(allowed.oidc_config?.allow_private_ips).toBe(true);
    await create(oauth2('Local OAuth', { token_endpoint: 'http://10.0.0.5/token' }));
  });

  it('refuses a second provider of the same name, ignoring case, on create and on replace (409)', async () => {
    const first = await create(oauth2('Atlassian'));
    expect(await error(oauth2('ATLASSIAN'), 409)).toBe('an identity provider named "ATLASSIAN" already exists (names are unique ignoring case)');
    const second = await create(oauth2('Jira'));
    const renamed = await platform.call<{ error: string }>('PUT', `${IDPS}/${second.id}`, { token: tokens.connector, body: oauth2('atlassian') });
    expect(renamed.status).toBe(409);
    const same = await platform.call('PUT', `${IDPS}/${first.id}`, { token: tokens.connector, body: oauth2('atlassian') });
    expect(same.status, same.text).toBe(200);
  });

  it('replaces a provider as a whole, moving the secrets it holds from deletion', async () => {
    const created = await create(oauth2('Replaced', { client_secret: { managed_secret_id: secretIds.other } }));
    expect((await platform.call('DELETE', `/v1/managed-secrets/${secretIds.other}`, { token: tokens.connector })).status).toBe(409);
    const response = await platform.call<IdentityProvider>('PUT', `${IDPS}/${created.id}`, {
      token: tokens.connector,
      body: oidc('Replaced', { client_secret: { managed_secret_id: secretIds.initial }, subject_claim: 'oid', scopes: ['openid'] }),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: created.id, created_at: created.created_at, provider_type: 'oidc', oauth2_config: null, registration_mode: 'static' });
    expect(response.body.oidc_config).toMatchObject({ subject_claim: 'oid', scopes: ['openid'], client_secret: { cluster_secret: null, managed_secret_id: secretIds.initial } });
    const conflict = await platform.call<{ error: string }>('DELETE', `/v1/managed-secrets/${secretIds.initial}`, { token: tokens.connector });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toContain(`identity provider "Replaced" (${created.id}) as oidc_config.client_secret`);
    expect((await platform.call('PUT', `${IDPS}/${UNKNOWN}`, { token: tokens.connector, body: oidc('Nobody') })).status).toBe(404);
    expect((await platform.call('PUT', `${IDPS}/${created.id}`, { token: tokens.connector, body: { ...oidc('Replaced'), source: 'api' } })).status).toBe(400);

    const audit = await platform.call<AuditEvents>('GET', `/v1/audit-events?target_id=${created.id}`, { token: tokens.admin });
    expect(audit.body.events.map((event) => event.action)).toEqual(['connector_identity_provider.replace', 'connector_identity_provider.create']);
  });

  it('deletes a provider (204, then 404) and lets go of its secrets', async () => {
    const created = await create(oauth2('Doomed', { client_secret: { managed_secret_id: secretIds.other } }));
    expect((await platform.call('DELETE', `${IDPS}/${created.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await platform.call('GET', `${IDPS}/${created.id}`, { token: tokens.connector })).status).toBe(404);
    expect((await platform.call('DELETE', `${IDPS}/${created.id}`, { token: tokens.connector })).status).toBe(404);
    // "Replaced" above let go of this one when it moved to another secret; "Doomed" held it until now
    expect((await platform.call('DELETE', `/v1/managed-secrets/${secretIds.other}`, { token: tokens.connector })).status).toBe(204);
  });

  it('answers 401 without a token and 403 without the role; auditors read, connectorAdmin and admin write', async () => {
    expect((await platform.call('GET', IDPS)).status).toBe(401);
    expect((await platform.call('GET', IDPS, { token: tokens.alice })).status).toBe(403);
    const denied = await post(oauth2('By auditor'), tokens.auditor);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('creating connector identity providers needs the role admin or connectorAdmin');
    const some = (await platform.call<Page>('GET', IDPS, { token: tokens.auditor })).body.items[0];
    expect(some).toBeDefined();
    expect((await platform.call('PUT', `${IDPS}/${String(some?.id)}`, { token: tokens.auditor, body: oauth2('By auditor') })).status).toBe(403);
    expect((await platform.call('DELETE', `${IDPS}/${String(some?.id)}`, { token: tokens.alice })).status).toBe(403);
    expect((await post(oauth2('By admin'), tokens.admin)).status).toBe(201);
  });

  it('pages by name with cursor and before', async () => {
    for (const name of ['zz-3', 'zz-1', 'zz-2']) await create(oauth2(name));
    const page = async (query: string) => {
      const response = await platform.call<Page>('GET', `${IDPS}?${query}`, { token: tokens.auditor });
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    const all = (await page('limit=200')).items.map((item) => item.name);
    expect(all).toEqual([...all].sort());
    expect(all.slice(-3)).toEqual(['zz-1', 'zz-2', 'zz-3']);
    const walked: string[] = [];
    let next: string | undefined;
    let last: Page | undefined;
    do {
      last = await page(`limit=2${next === undefined ? '' : `&cursor=${next}`}`);
      walked.push(...last.items.map((item) => item.name));
      next = last.next_cursor;
    } while (next !== undefined);
    expect(walked).toEqual(all);
    expect(last.prev_cursor).toBeDefined();
    const back = await page(`limit=2&before=${String(last.prev_cursor)}`);
    expect(back.items.map((item) => item.name)).toEqual(all.slice(-2 - last.items.length, -last.items.length));
    const secretsCursor = (await platform.call<{ next_cursor?: string }>('GET', '/v1/managed-secrets?limit=1', { token: tokens.auditor })).body.next_cursor;
    expect((await platform.call('GET', `${IDPS}?cursor=${String(secretsCursor)}`, { token: tokens.auditor })).status).toBe(400);
  });
});
