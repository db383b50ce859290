import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { CredentialError, type CredentialCaller, type CredentialConnector } from '../../src/platform/connector-credentials/index.js';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from '../../src/platform/connector-credentials/token-endpoint-testing.js';
import type { IdentityProvider } from '../../src/platform/connector-idps/schemas.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { ManagedSecret } from '../../src/platform/secrets/schemas.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, tempFile, type TestPlatform } from './helpers.js';

const KEY = 'u4xQp0yq8m0wz5g0m5xH1cYV9p0kqZ0m8yB2nQ3rV1s=';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('upstream credentials (%s)', (_name, target) => {
  let provider: OidcProvider;
  let stranger: OidcProvider;
  let endpoint: FakeTokenEndpoint;
  let platform: TestPlatform;
  let admin = '';
  let serial = 0;
  const ids = { secret: '', provider: '' };

  const caller = (token: string, issuer: string): CredentialCaller => ({ token, issuer });
  const create = async (auth: Record<string, unknown>): Promise<CredentialConnector> => {
    serial += 1;
    // a public name that does not resolve: the endpoint check fails fast and the write succeeds regardless
    const response = await platform.call<Connector>('POST', '/v1/gateways/default/connectors', {
      token: admin,
      body: { name: `Connector ${String(serial)}`, endpoint: `https://mcp.example.invalid/${String(serial)}`, transport: 'streamable-http', auth, allow_private_ips: true },
    });
    expect(response.status, response.text).toBe(201);
    // the gateway reads the stored row, secret references included
    return platform.database.db.selectFrom('connectors').select(['id', 'auth', 'provider_id', 'allow_private_ips']).where('id', '=', response.body.id).executeTakeFirstOrThrow();
  };

  beforeAll(async () => {
    [provider, stranger, endpoint] = await Promise.all([startTestProvider(), startTestProvider(), startFakeTokenEndpoint({ id: 'gateway', secret: 'exchange-secret' })]);
    platform = await createTestPlatform({ target, config: { auth: oauthWith(provider), secrets: { keyFile: await tempFile('secrets.key', KEY) } } });
    admin = await provider.mint({ sub: 'connie', exp: nowSeconds() + 3600, claims: { roles: ['connectorAdmin'] } });
    const secret = await platform.call<ManagedSecret>('POST', '/v1/managed-secrets', { token: admin, body: { name: 'exchange-secret', value: 'exchange-secret' } });
    expect(secret.status, secret.text).toBe(201);
    ids.secret = secret.body.id;
    const idp = await platform.call<IdentityProvider>('POST', '/v1/connector-identity-providers', {
      token: admin,
      body: { name: 'Company SSO', provider_type: 'oidc', oidc_config: { issuer_url: provider.issuer, client_id: 'toolyard', token_endpoint_auth_method: 'none', allow_private_ips: true } },
    });
    expect(idp.status, idp.text).toBe(201);
    ids.provider = idp.body.id;
  }, 60_000);
  afterAll(async () => {
    await platform.dispose();
    await Promise.all([provider.close(), stranger.close(), endpoint.close()]);
  });

  it('injects a managed secret for header_injection', async () => {
    const connector = await create({ type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value: { managed_secret_id: ids.secret } } });
    expect(await platform.features.credentials.headersFor(connector, { token: null, issuer: null })).toEqual({ 'X-Api-Key': 'exchange-secret' });
  });

  it("passes the caller's JWT upstream only when the connector's provider issued it", async () => {
    const connector = await create({ type: 'upstream_inject', upstream_inject: { provider_id: ids.provider } });
    const alice = await provider.mint({ sub: 'alice', exp: nowSeconds() + 600 });
    const outsider = await stranger.mint({ sub: 'alice', exp: nowSeconds() + 600 });
    expect(await platform.features.credentials.servingProblem(connector, caller(alice, provider.issuer))).toBeUndefined();
    expect(await platform.features.credentials.headersFor(connector, caller(alice, provider.issuer))).toEqual({ authorization: `Bearer ${alice}` });
    expect(await platform.features.credentials.servingProblem(connector, caller(outsider, stranger.issuer))).toMatch(/needs a JWT issued by "Company SSO"/);
    await expect(platform.features.credentials.headersFor(connector, caller(outsider, stranger.issuer))).rejects.toBeInstanceOf(CredentialError);
  });

  it("exchanges each caller's own JWT, with the client secret from a managed secret", async () => {
    const connector = await create({
      type: 'token_exchange',
      token_exchange: { token_url: endpoint.url, client_id: 'gateway', client_secret: { managed_secret_id: ids.secret }, provider_id: ids.provider, audience: 'mcp', scopes: ['read'] },
    });
    const alice = await provider.mint({ sub: 'alice', exp: nowSeconds() + 600 });
    const bob = await provider.mint({ sub: 'bob', exp: nowSeconds() + 600 });
    const before = endpoint.received.length;
    const forAlice = await platform.features.credentials.headersFor(connector, caller(alice, provider.issuer));
    const forBob = await platform.features.credentials.headersFor(connector, caller(bob, provider.issuer));
    expect(forAlice.authorization).toMatch(/^Bearer issued-\d+$/);
    expect(forBob.authorization).toMatch(/^Bearer issued-\d+$/);
    expect(forBob.authorization).not.toBe(forAlice.authorization);
    expect(endpoint.received.slice(before).map((exchange) => exchange.form.subject_token)).toEqual([alice, bob]);
    expect(endpoint.received[before]?.basic).toEqual({ clientId: 'gateway', secret: 'exchange-secret' });
    // alice's second call reuses her token
    expect(await platform.features.credentials.headersFor(connector, caller(alice, provider.issuer))).toEqual(forAlice);
    expect(endpoint.received.length).toBe(before + 2);
  });
});
