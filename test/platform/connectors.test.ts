import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { IdentityProvider } from '../../src/platform/connector-idps/schemas.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { ManagedSecret } from '../../src/platform/secrets/schemas.js';
import { startEverything, type RunningUpstream } from '../../src/runtime/proxy/reverse-proxy-testing.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { startGuardedMcpServer, type GuardedMcpServer } from './connectors-testing.js';
import { createTestPlatform, oauthWith, startTestProvider, tempFile, type TestPlatform } from './helpers.js';

type Page = { items: Connector[]; next_cursor?: string; prev_cursor?: string };
const BASE = '/v1/gateways/default/connectors';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const KEY = 'u4xQp0yq8m0wz5g0m5xH1cYV9p0kqZ0m8yB2nQ3rV1s=';
/** A public name that does not resolve: not refused as private, and unreachable when checked. */
const NOWHERE = 'https://mcp.example.invalid/mcp';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('connectors (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let everything: RunningUpstream;
  let everythingSse: RunningUpstream;
  let guarded: GuardedMcpServer;
  const tokens = { connector: '', auditor: '', alice: '' };
  let secretId = '';
  let providerId = '';
  let serial = 0;

  const post = (body: unknown, token = tokens.connector, path = BASE) => platform.call<Connector & { error: string }>('POST', path, { token, body });
  /** A valid body with a fresh name and endpoint (on the guarded server, any path answers). */
  const body = (overrides: Record<string, unknown> = {}) => {
    serial += 1;
    return { name: `Connector ${String(serial)}`, endpoint: `${NOWHERE}/${String(serial)}`, transport: 'streamable-http', auth: { type: 'none' }, ...overrides };
  };
  const create = async (overrides: Record<string, unknown> = {}) => {
    const response = await post(body(overrides));
    expect(response.status, response.text).toBe(201);
    return response.body as Connector;
  };
  const refused = async (overrides: Record<string, unknown>, status = 400) => {
    const response = await post(body(overrides));
    expect(response.status, response.text).toBe(status);
    return response.body.error;
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    [everything, everythingSse, guarded] = await Promise.all([startEverything('streamableHttp'), startEverything('sse'), startGuardedMcpServer('X-Api-Key', 'value-of-api-key')]);
    platform = await createTestPlatform({
      target,
      config: {
        auth: oauthWith(provider),
        secrets: { keyFile: await tempFile('secrets.key', KEY) },
        connectorGateway: { gateways: [{ id: 'default', name: 'Default' }, { id: 'eu', name: 'EU' }] },
      },
    });
    const exp = nowSeconds() + 3600;
    tokens.connector = await provider.mint({ sub: 'connie', exp, claims: { roles: ['connectorAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    const secret = await platform.call<ManagedSecret>('POST', '/v1/managed-secrets', { token: tokens.connector, body: { name: 'api-key', value: 'value-of-api-key' } });
    expect(secret.status, secret.text).toBe(201);
    secretId = secret.body.id;
    const idp = await platform.call<IdentityProvider>('POST', '/v1/connector-identity-providers', {
      token: tokens.connector,
      body: { name: 'Entra', provider_type: 'oidc', oidc_config: { issuer_url: 'https://login.example.com', client_id: 'toolyard', token_endpoint_auth_method: 'none' } },
    });
    expect(idp.status, idp.text).toBe(201);
    providerId = idp.body.id;
  }, 60_000);
  afterAll(async () => {
    await platform.dispose();
    await Promise.all([provider.close(), everything.stop(), everythingSse.stop(), guarded.close()]);
  });

  it('creates a connector with every field present, verified against server-everything over Streamable HTTP and SSE', async () => {
    const response = await post({
      name: 'Everything',
      endpoint: `http://127.0.0.1:${String(everything.port)}/mcp`,
      transport: 'streamable-http',
      auth: { type: 'none' },
      description: 'the reference server',
      allow_private_ips: true,
    });
    expect(response.status, response.text).toBe(201);
    const created = response.body;
    expect(Object.keys(created).sort()).toEqual([
      'allow_private_ips', 'auth', 'created_at', 'deployment_mode', 'description', 'endpoint', 'gateway_id', 'icon_url', 'id', 'name', 'origin',
      'repository_url', 'source_name', 'source_namespace', 'status', 'support_url', 'transport', 'updated_at', 'version',
    ]);
    expect(created).toMatchObject({
      allow_private_ips: true,
      deployment_mode: 'proxy_remote',
      description: 'the reference server',
      gateway_id: 'default',
      icon_url: null,
      origin: 'manual',
      source_name: null,
      status: 'verified',
      version: null,
      updated_at: created.created_at,
    });
    expect(created.auth).toEqual({ type: 'none', cloud_sts: null, header_injection: null, obo: null, token_exchange: null, upstream_inject: null, xaa: null });
    const read = await platform.call<Connector>('GET', `${BASE}/${created.id}`, { token: tokens.auditor });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);

    const sse = await create({ endpoint: `http://127.0.0.1:${String(everythingSse.port)}/sse`, transport: 'sse', allow_private_ips: true });
    expect(sse.status).toBe('verified');
  });

  it('records auth_required without the injected header, verified with it, unreachable when nothing answers; the write succeeds each time', async () => {
    const bare = await create({ endpoint: `${guarded.url}/bare`, allow_private_ips: true });
    expect(bare.status).toBe('auth_required');
    const injected = await create({
      endpoint: `${guarded.url}/injected`,
      allow_private_ips: true,
      auth: { type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value: { managed_secret_id: secretId } } },
    });
    expect(injected.status).toBe('verified');
    expect(injected.auth.header_injection).toEqual({ header_name: 'X-Api-Key' });
    expect(JSON.stringify(injected)).not.toContain(secretId);
    expect(JSON.stringify(injected)).not.toContain('value-of-api-key');
    expect((await create({ endpoint: NOWHERE })).status).toBe('unreachable');
  });

  it('checks again on an update that changes the endpoint or auth, and keeps the status otherwise', async () => {
    const created = await create({ endpoint: `${guarded.url}/update`, allow_private_ips: true });
    expect(created.status).toBe('auth_required');
    const path = `${BASE}/${created.id}`;
    const base = { name: created.name, endpoint: created.endpoint, transport: 'streamable-http', allow_private_ips: true };
    const renamed = await platform.call<Connector>('PUT', path, { token: tokens.connector, body: { ...base, name: 'Renamed', auth: { type: 'none' }, description: 'now described' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', status: 'auth_required', description: 'now described', created_at: created.created_at });
    const withHeader = await platform.call<Connector>('PUT', path, {
      token: tokens.connector,
      body: { ...base, name: 'Renamed', auth: { type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value: { managed_secret_id: secretId } } } },
    });
    expect(withHeader.status, withHeader.text).toBe(200);
    expect(withHeader.body.status).toBe('verified');
  });

  it('keeps origin and source_* on update, derives deployment_mode, and requires source_* iff kubernetes_cluster', async () => {
    const cluster = await create({ origin: 'kubernetes_cluster', source_name: 'github-mcp', source_namespace: 'tools' });
    expect(cluster).toMatchObject({ origin: 'kubernetes_cluster', deployment_mode: 'kubernetes', source_name: 'github-mcp', source_namespace: 'tools' });
    const updated = await platform.call<Connector>('PUT', `${BASE}/${cluster.id}`, {
      token: tokens.connector,
      body: { name: cluster.name, endpoint: cluster.endpoint, transport: 'streamable-http', auth: { type: 'none' }, origin: 'manual' },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ origin: 'kubernetes_cluster', deployment_mode: 'kubernetes', source_name: 'github-mcp', source_namespace: 'tools' });
    expect((await create({ origin: 'registry' })).deployment_mode).toBe('proxy_remote');
    expect(await refused({ origin: 'kubernetes_cluster', source_name: 'x' })).toMatch(/^source_namespace: is required when origin is kubernetes_cluster/);
    expect(await refused({ source_name: 'x' })).toMatch(/^source_name: only for origin kubernetes_cluster/);
  });

  it('refuses missing fields, bad lengths and URLs, read-only and unknown fields', async () => {
    const nameless: Record<string, unknown> = body();
    delete nameless.name;
    expect((await post(nameless)).status).toBe(400);
    expect((await post(nameless)).body.error).toMatch(/name/);
    expect(await refused({ name: 'x'.repeat(65) })).toMatch(/name/);
    expect(await refused({ name: '' })).toMatch(/name/);
    expect(await refused({ endpoint: 'mcp.example.com/mcp' })).toMatch(/^endpoint: .* is not an absolute URL/);
    expect(await refused({ endpoint: 'ftp://mcp.example.com/mcp' })).toMatch(/^endpoint: must be an http or https URL/);
    expect(await refused({ support_url: 'nope' })).toMatch(/^support_url: /);
    expect(await refused({ transport: 'stdio' })).toMatch(/transport/);
    expect(await refused({ status: 'verified' })).toMatch(/^body\.status: read-only/);
    expect(await refused({ deployment_mode: 'kubernetes' })).toMatch(/^body\.deployment_mode: read-only/);
    expect(await refused({ id: UNKNOWN })).toMatch(/^body\.id: read-only/);
    expect(await refused({ colour: 'blue' })).toMatch(/colour/);
    expect(await refused({ auth: { type: 'token_exchange', token_exchange: { token_url: 'https://sts.example.com/token', client_secret_configured: true } } })).toMatch(
      /^body\.auth\.token_exchange\.client_secret_configured: read-only/,
    );
  });

  it('validates the auth union: exactly the block of the type, its required fields, token types and references', async () => {
    expect(await refused({ auth: { type: 'none', obo: { client_id: 'c', provider_id: providerId, tenant_id: 't' } } })).toBe('auth.obo is not allowed when auth.type is none');
    expect(await refused({ auth: { type: 'upstream_inject', upstream_inject: { provider_id: providerId }, header_injection: { header_name: 'X', value: { managed_secret_id: secretId } } } })).toBe(
      'auth.header_injection is not allowed when auth.type is upstream_inject',
    );
    expect(await refused({ auth: { type: 'obo' } })).toBe('auth.obo: is required when auth.type is obo');
    expect(await refused({ auth: { type: 'header_injection', header_injection: { header_name: 'X-Key' } } })).toMatch(/value/);
    expect(await refused({ auth: { type: 'obo', obo: { client_id: 'c', provider_id: providerId } } })).toMatch(/tenant_id/);
    expect(await refused({ auth: { type: 'cloud_sts', cloud_sts: { provider_id: providerId } } })).toMatch(/region/);
    expect(await refused({ auth: { type: 'token_exchange', token_exchange: { client_id: 'c' } } })).toMatch(/token_url/);
    expect(await refused({ auth: { type: 'xaa', xaa: {} } })).toMatch(/provider_id/);
    expect(await refused({ auth: { type: 'token_exchange', token_exchange: { token_url: 'https://sts.example.com/token', subject_token_type: 'saml2' } } })).toMatch(
      /^auth\.token_exchange\.subject_token_type: "saml2" is not one of/,
    );
    expect(await refused({ auth: { type: 'header_injection', header_injection: { header_name: 'X-Key', value: {} } } })).toBe(
      'auth.header_injection.value: set exactly one of cluster_secret or managed_secret_id',
    );
    expect(
      await refused({ auth: { type: 'header_injection', header_injection: { header_name: 'X-Key', value: { managed_secret_id: secretId, cluster_secret: { key: 'k', name: 'n', namespace: 'ns' } } } } }),
    ).toBe('auth.header_injection.value: set exactly one of cluster_secret or managed_secret_id');
    expect(await refused({ auth: { type: 'header_injection', header_injection: { header_name: 'X-Key', value: { managed_secret_id: UNKNOWN } } } })).toBe(
      `auth.header_injection.value.managed_secret_id: no managed secret with id ${UNKNOWN}`,
    );
    expect(await refused({ auth: { type: 'upstream_inject', upstream_inject: { provider_id: UNKNOWN } } })).toBe(`auth.upstream_inject.provider_id: no connector identity provider with id ${UNKNOWN}`);
  });

  it('stores each auth type with defaults, only client_secret_configured for secrets, URNs taken as token types', async () => {
    const exchange = await create({
      auth: {
        type: 'token_exchange',
        token_exchange: { token_url: 'https://sts.example.com/token', client_id: 'gw', client_secret: { cluster_secret: { key: 'secret', name: 'sts', namespace: 'tools' } }, subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
      },
    });
    expect(exchange.auth.token_exchange).toEqual({
      audience: null,
      client_id: 'gw',
      client_secret_configured: true,
      external_token_header_name: null,
      provider_id: null,
      scopes: [],
      subject_token_type: 'id_token',
      token_url: 'https://sts.example.com/token',
    });
    expect(JSON.stringify(exchange)).not.toContain('cluster_secret');
    const plain = await create({ auth: { type: 'token_exchange', token_exchange: { token_url: 'https://sts.example.com/token' } } });
    expect(plain.auth.token_exchange).toMatchObject({ client_secret_configured: false, subject_token_type: 'access_token' });
    const obo = await create({ auth: { type: 'obo', obo: { client_id: 'c', provider_id: providerId, tenant_id: 't', client_secret: { managed_secret_id: secretId } } } });
    expect(obo.auth.obo).toEqual({ audience: null, authority: null, cache_skew: null, client_id: 'c', provider_id: providerId, scopes: [], tenant_id: 't' });
    const sts = await create({ auth: { type: 'cloud_sts', cloud_sts: { provider_id: providerId, region: 'eu-west-1', role_mappings: [{ claim: 'groups', matcher: 'admins', priority: 1, role_arn: 'arn:aws:iam::1:role/a' }] } } });
    expect(sts.auth.cloud_sts).toMatchObject({ region: 'eu-west-1', session_duration: null, role_mappings: [{ claim: 'groups', priority: 1 }] });
    const xaa = await create({ auth: { type: 'xaa', xaa: { provider_id: providerId, target_client_secret: { managed_secret_id: secretId } } } });
    expect(xaa.auth.xaa).toMatchObject({ provider_id: providerId, insecure_target_token_url: false, subject_token_type: 'access_token', scopes: [] });
    const inject = await create({ auth: { type: 'upstream_inject', upstream_inject: { provider_id: providerId } } });
    expect(inject.auth).toMatchObject({ type: 'upstream_inject', upstream_inject: { provider_id: providerId }, token_exchange: null });
  });

  it('holds the references: a used managed secret or identity provider cannot be deleted until the connector lets go', async () => {
    const secret = await platform.call<ManagedSecret>('POST', '/v1/managed-secrets', { token: tokens.connector, body: { name: 'held', value: 'v' } });
    const idp = await platform.call<IdentityProvider>('POST', '/v1/connector-identity-providers', {
      token: tokens.connector,
      body: { name: 'Held IdP', provider_type: 'oidc', oidc_config: { issuer_url: 'https://held.example.com', client_id: 'toolyard', token_endpoint_auth_method: 'none' } },
    });
    const user = await create({ name: 'Holder', auth: { type: 'obo', obo: { client_id: 'c', provider_id: idp.body.id, tenant_id: 't', client_secret: { managed_secret_id: secret.body.id } } } });
    const secretDelete = await platform.call<{ error: string }>('DELETE', `/v1/managed-secrets/${secret.body.id}`, { token: tokens.connector });
    expect(secretDelete.status).toBe(409);
    expect(secretDelete.body.error).toContain('connector "Holder"');
    expect(secretDelete.body.error).toContain('auth.obo.client_secret');
    const idpDelete = await platform.call<{ error: string }>('DELETE', `/v1/connector-identity-providers/${idp.body.id}`, { token: tokens.connector });
    expect(idpDelete.status).toBe(409);
    expect(idpDelete.body.error).toContain('connector "Holder"');

    expect((await platform.call('DELETE', `${BASE}/${user.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await platform.call('GET', `${BASE}/${user.id}`, { token: tokens.connector })).status).toBe(404);
    expect((await platform.call('DELETE', `/v1/managed-secrets/${secret.body.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await platform.call('DELETE', `/v1/connector-identity-providers/${idp.body.id}`, { token: tokens.connector })).status).toBe(204);
  });

  it('lets go of a secret when an update drops it, and records each write in the audit trail without the secret', async () => {
    const secret = await platform.call<ManagedSecret>('POST', '/v1/managed-secrets', { token: tokens.connector, body: { name: 'swapped', value: 'swapped-value' } });
    const created = await create({ name: 'Swapper', auth: { type: 'header_injection', header_injection: { header_name: 'X-Key', value: { managed_secret_id: secret.body.id } } } });
    expect((await platform.call('DELETE', `/v1/managed-secrets/${secret.body.id}`, { token: tokens.connector })).status).toBe(409);
    const replaced = await platform.call<Connector>('PUT', `${BASE}/${created.id}`, { token: tokens.connector, body: { name: 'Swapper', endpoint: created.endpoint, transport: 'streamable-http', auth: { type: 'none' } } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.auth).toMatchObject({ type: 'none', header_injection: null });
    expect((await platform.call('DELETE', `/v1/managed-secrets/${secret.body.id}`, { token: tokens.connector })).status).toBe(204);
    expect((await platform.call('DELETE', `${BASE}/${created.id}`, { token: tokens.connector })).status).toBe(204);

    const audit = await platform.call<{ events: { action: string }[] }>('GET', `/v1/audit-events?target_id=${created.id}`, { token: tokens.auditor });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.events.map((event) => event.action)).toEqual(['connector.delete', 'connector.replace', 'connector.create']);
    expect(audit.text).not.toContain(secret.body.id);
  });

  it('answers 409 for a name (ignoring case), tool prefix or endpoint already used on the gateway, and allows them on another gateway', async () => {
    const first = await create({ name: 'GitHub Tools', endpoint: 'https://MCP.GitHub.example.invalid:443/mcp' });
    const name = await post(body({ name: 'github tools' }));
    expect(name.status).toBe(409);
    expect(name.body.error).toMatch(/^name: connector "GitHub Tools"/);
    const prefix = await post(body({ name: 'GitHub  Tools!' }));
    expect(prefix.status).toBe(409);
    expect(prefix.body.error).toContain('tool prefix "github_tools"');
    const endpoint = await post(body({ endpoint: 'https://mcp.github.example.invalid/mcp' }));
    expect(endpoint.status).toBe(409);
    expect(endpoint.body.error).toMatch(/^endpoint: connector "GitHub Tools"/);
    expect(await refused({ name: '!!!' })).toMatch(/^name: "!!!" gives an empty tool prefix/);

    const racing = await Promise.all([post(body({ name: 'Racer' })), post(body({ name: 'RACER' }))]);
    expect(racing.map((response) => response.status).sort()).toEqual([201, 409]);
    expect(racing.find((response) => response.status === 409)?.body.error).toMatch(/^name: connector "Racer"|^name: connector "RACER"/);

    const elsewhere = await post({ name: 'GitHub Tools', endpoint: 'https://mcp.github.example.invalid/mcp', transport: 'sse', auth: { type: 'none' } }, tokens.connector, '/v1/gateways/eu/connectors');
    expect(elsewhere.status, elsewhere.text).toBe(201);
    expect(elsewhere.body.gateway_id).toBe('eu');
    expect((await platform.call('GET', `${BASE}/${elsewhere.body.id}`, { token: tokens.connector })).status).toBe(404);

    const other = await create();
    const clash = await platform.call<{ error: string }>('PUT', `${BASE}/${other.id}`, { token: tokens.connector, body: { name: 'GITHUB TOOLS', endpoint: other.endpoint, transport: 'streamable-http', auth: { type: 'none' } } });
    expect(clash.status).toBe(409);
    const same = await platform.call<Connector>('PUT', `${BASE}/${first.id}`, { token: tokens.connector, body: { name: 'github tools', endpoint: first.endpoint, transport: 'streamable-http', auth: { type: 'none' } } });
    expect(same.status, same.text).toBe(200);
  });

  it('refuses private, loopback, link-local and unspecified endpoints unless allow_private_ips', async () => {
    for (const endpoint of ['http://127.0.0.1:9/mcp', 'http://localhost/mcp', 'http://[::1]/mcp', 'http://10.1.2.3/mcp', 'http://169.254.169.254/latest', 'http://0.0.0.0/mcp']) {
      expect(await refused({ endpoint })).toMatch(/^endpoint: .* is or resolves to the private address .*; set allow_private_ips: true/);
    }
    expect((await create({ endpoint: 'http://10.1.2.3:1/mcp', allow_private_ips: true })).allow_private_ips).toBe(true);
  });

  it('lists by name with cursors both ways and per gateway', async () => {
    const all: Connector[] = [];
    let cursor: string | undefined;
    do {
      const page = await platform.call<Page>('GET', `${BASE}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token: tokens.auditor });
      expect(page.status, page.text).toBe(200);
      all.push(...page.body.items);
      cursor = page.body.next_cursor;
      if (cursor) {
        const back = await platform.call<Page>('GET', `${BASE}?limit=3&before=${cursor}`, { token: tokens.auditor });
        expect(back.body.items.map((connector) => connector.id)).toEqual([...all.slice(0, -1).slice(-3)].map((connector) => connector.id));
      }
    } while (cursor);
    expect(all.length).toBeGreaterThan(10);
    const names = all.map((connector) => connector.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(all.every((connector) => connector.gateway_id === 'default')).toBe(true);
    const first = await platform.call<Page>('GET', `${BASE}?limit=2`, { token: tokens.auditor });
    expect(first.body.prev_cursor).toBeUndefined();
    const next = first.body.next_cursor ?? '';
    expect(next).not.toBe('');
    expect((await platform.call('GET', `${BASE}?limit=0`, { token: tokens.auditor })).status).toBe(400);
    expect((await platform.call('GET', `${BASE}?cursor=bogus`, { token: tokens.auditor })).status).toBe(400);
    expect((await platform.call('GET', `${BASE}?cursor=${next}&before=${next}`, { token: tokens.auditor })).status).toBe(400);
    const eu = await platform.call<Page>('GET', `/v1/gateways/eu/connectors?cursor=${next}`, { token: tokens.auditor });
    expect(eu.status).toBe(400);
  });

  it('answers 404 for an unknown gateway or connector, and enforces the roles', async () => {
    expect((await post(body(), tokens.connector, '/v1/gateways/nowhere/connectors')).status).toBe(404);
    expect((await platform.call('GET', '/v1/gateways/nowhere/connectors', { token: tokens.auditor })).status).toBe(404);
    expect((await platform.call('GET', `${BASE}/${UNKNOWN}`, { token: tokens.auditor })).status).toBe(404);
    expect((await platform.call('DELETE', `${BASE}/${UNKNOWN}`, { token: tokens.connector })).status).toBe(404);
    expect((await platform.call('PUT', `${BASE}/${UNKNOWN}`, { token: tokens.connector, body: body() })).status).toBe(404);
    expect((await platform.call('GET', `${BASE}/not-a-uuid`, { token: tokens.auditor })).status).toBe(400);

    const created = await create();
    expect((await post(body(), tokens.auditor)).status).toBe(403);
    expect((await post(body(), tokens.alice)).status).toBe(403);
    expect((await platform.call('GET', BASE, { token: tokens.alice })).status).toBe(403);
    expect((await platform.call('GET', `${BASE}/${created.id}`, { token: tokens.alice })).status).toBe(403);
    expect((await platform.call('PUT', `${BASE}/${created.id}`, { token: tokens.auditor, body: body() })).status).toBe(403);
    expect((await platform.call('DELETE', `${BASE}/${created.id}`, { token: tokens.auditor })).status).toBe(403);
    expect((await platform.call('GET', BASE)).status).toBe(401);
  });
});
