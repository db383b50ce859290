import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import type { StoredAuth } from '../connectors/tables.js';
import type { ManagedSecrets } from '../secrets/index.js';
import { CredentialError, type CredentialCaller, type CredentialConnector } from './credentials.js';
import { createSecretValues, type ClusterSecrets } from './secret-values.js';
import type { ProviderIssuer } from './store.js';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './token-endpoint-testing.js';
import { createTokenExchanger } from './token-exchange.js';
import { createUpstreamCredentials } from './upstream.js';

const OIDC = '11111111-1111-4111-8111-111111111111';
const OAUTH2 = '22222222-2222-4222-8222-222222222222';
const SECRET = '33333333-3333-4333-8333-333333333333';
const ISSUER = 'https://login.example.com/realms/acme';
const providers: Record<string, ProviderIssuer> = { [OIDC]: { name: 'Acme SSO', issuerUrl: `${ISSUER}/` }, [OAUTH2]: { name: 'GitHub', issuerUrl: null } };

const managed: ManagedSecrets = {
  reveal: (id) => (id === SECRET ? Promise.resolve('managed-value') : Promise.reject(new NotFoundError(`no managed secret with id ${id}`))),
  exists: () => Promise.resolve(true),
  holdReferences: () => Promise.resolve(),
  releaseReferences: () => Promise.resolve(),
};
const cluster: ClusterSecrets = {
  read: (ref) => (ref.name === 'api' && ref.key === 'token' ? Promise.resolve('cluster-value') : Promise.reject(new Error(`Secret ${ref.namespace}/${ref.name} has no key "${ref.key}"`))),
};

const jwtCaller: CredentialCaller = { token: 'header.payload.signature', issuer: ISSUER };
const otherIssuer: CredentialCaller = { token: 'other.issuer.token', issuer: 'https://elsewhere.example.com' };
const keyCaller: CredentialCaller = { token: null, issuer: null };

const connector = (auth: StoredAuth, allowPrivateIps = true): CredentialConnector => ({ id: 'c1', auth, provider_id: null, allow_private_ips: allowPrivateIps });
const managedRef = (id = SECRET) => ({ cluster_secret: null, managed_secret_id: id });
const clusterRef = (name = 'api', key = 'token') => ({ cluster_secret: { key, name, namespace: 'tools' }, managed_secret_id: null });

let endpoint: FakeTokenEndpoint;
beforeAll(async () => {
  endpoint = await startFakeTokenEndpoint({ id: 'gateway', secret: 'managed-value' });
});
afterAll(() => endpoint.close());

function credentials(withCluster = true) {
  return createUpstreamCredentials({
    providerIssuer: (id) => Promise.resolve(providers[id]),
    values: createSecretValues({ secrets: managed, cluster: withCluster ? cluster : undefined }),
    exchanger: createTokenExchanger({ clock: { now: () => new Date() } }),
  });
}

const exchange = (overrides: Partial<NonNullable<StoredAuth['token_exchange']>> = {}): StoredAuth => ({
  type: 'token_exchange',
  token_exchange: {
    audience: null,
    client_id: 'gateway',
    client_secret: managedRef(),
    external_token_header_name: null,
    provider_id: null,
    scopes: [],
    subject_token_type: 'access_token',
    token_url: endpoint.url,
    ...overrides,
  },
});

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CredentialError);
  return (error as Error).message;
}

describe('which connectors can be served to a caller', () => {
  it('refuses obo, cloud_sts and xaa with a reason', async () => {
    const upstream = credentials();
    const obo: StoredAuth = { type: 'obo', obo: { audience: null, authority: null, cache_skew: null, client_id: 'x', client_secret: null, provider_id: OIDC, scopes: [], tenant_id: 't' } };
    expect(await upstream.servingProblem(connector(obo), jwtCaller)).toMatch(/on-behalf-of \(obo\) is not supported/);
    expect(await upstream.servingProblem(connector({ type: 'cloud_sts' }), jwtCaller)).toMatch(/cloud STS/);
    expect(await upstream.servingProblem(connector({ type: 'xaa' }), jwtCaller)).toMatch(/cross-app access/);
    expect(await failure(upstream.headersFor(connector({ type: 'xaa' }), jwtCaller))).toMatch(/cross-app access/);
  });

  it("serves upstream_inject only to JWTs of the connector's provider", async () => {
    const upstream = credentials();
    const inject = connector({ type: 'upstream_inject', upstream_inject: { provider_id: OIDC } });
    expect(await upstream.servingProblem(inject, jwtCaller)).toBeUndefined();
    expect(await upstream.headersFor(inject, jwtCaller)).toEqual({ authorization: 'Bearer header.payload.signature' });
    expect(await upstream.servingProblem(inject, otherIssuer)).toBe(
      `auth type upstream_inject needs a JWT issued by "Acme SSO" (${ISSUER}/); the caller's token was issued by https://elsewhere.example.com, so the user must sign in with that provider`,
    );
    expect(await upstream.servingProblem(inject, keyCaller)).toMatch(/a virtual API key has none/);
    expect(await failure(upstream.headersFor(inject, otherIssuer))).toMatch(/needs a JWT issued by "Acme SSO"/);
    const oauth2 = connector({ type: 'upstream_inject', upstream_inject: { provider_id: OAUTH2 } });
    expect(await upstream.servingProblem(oauth2, jwtCaller)).toMatch(/needs an OpenID identity provider with an issuer_url; "GitHub" is oauth2/);
  });

  it('checks the issuer for token_exchange only when it names a provider', async () => {
    const upstream = credentials();
    expect(await upstream.servingProblem(connector(exchange()), keyCaller)).toBeUndefined();
    expect(await upstream.servingProblem(connector(exchange({ provider_id: OIDC })), jwtCaller)).toBeUndefined();
    expect(await upstream.servingProblem(connector(exchange({ provider_id: OIDC })), otherIssuer)).toMatch(/token_exchange needs a JWT issued by "Acme SSO"/);
    expect(await upstream.servingProblem(connector({ type: 'none' }), keyCaller)).toBeUndefined();
  });
});

describe('the headers sent upstream', () => {
  it('sends nothing for none', async () => {
    expect(await credentials().headersFor(connector({ type: 'none' }), keyCaller)).toEqual({});
  });

  it('injects a managed or a cluster secret under the header name', async () => {
    const upstream = credentials();
    const header = (value: ReturnType<typeof managedRef> | ReturnType<typeof clusterRef>) => connector({ type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value } });
    expect(await upstream.headersFor(header(managedRef()), keyCaller)).toEqual({ 'X-Api-Key': 'managed-value' });
    expect(await upstream.headersFor(header(clusterRef()), keyCaller)).toEqual({ 'X-Api-Key': 'cluster-value' });
    expect(await failure(upstream.headersFor(header(clusterRef('api', 'other')), keyCaller))).toBe(
      'auth.header_injection.value: cannot read key "other" of Secret tools/api from the discovery cluster: Secret tools/api has no key "other"',
    );
    expect(await failure(upstream.headersFor(header(managedRef('44444444-4444-4444-8444-444444444444')), keyCaller))).toBe(
      'auth.header_injection.value: no managed secret with id 44444444-4444-4444-8444-444444444444',
    );
  });

  it('names the missing discovery cluster for a cluster secret', async () => {
    const header = connector({ type: 'header_injection', header_injection: { header_name: 'X-Api-Key', value: clusterRef() } });
    expect(await failure(credentials(false).headersFor(header, keyCaller))).toBe(
      'auth.header_injection.value: the cluster secret (key "token" of Secret tools/api) cannot be read: connectorGateway.discovery is not configured',
    );
  });

  it("exchanges the caller's JWT for a Bearer token, or puts it raw in the external header", async () => {
    const upstream = credentials();
    const before = endpoint.received.length;
    const bearer = await upstream.headersFor(connector(exchange({ provider_id: OIDC })), jwtCaller);
    expect(bearer).toEqual({ authorization: expect.stringMatching(/^Bearer issued-\d+$/) as unknown });
    expect(endpoint.received[before]?.form.subject_token).toBe('header.payload.signature');
    expect(endpoint.received[before]?.basic).toEqual({ clientId: 'gateway', secret: 'managed-value' });
    const raw = await upstream.headersFor(connector(exchange({ external_token_header_name: 'X-Upstream-Token' })), otherIssuer);
    expect(raw).toEqual({ 'X-Upstream-Token': expect.stringMatching(/^issued-\d+$/) as unknown });
  });

  it('refuses to exchange for a virtual-key caller, and names endpoint failures', async () => {
    const upstream = credentials();
    expect(await failure(upstream.headersFor(connector(exchange()), keyCaller))).toBe("auth type token_exchange needs the caller's JWT; a virtual API key cannot be exchanged");
    const rejected = await failure(upstream.headersFor(connector(exchange()), { token: 'rejected', issuer: ISSUER }));
    expect(rejected).toBe(`token exchange at ${endpoint.url}: invalid_grant: the subject token is not valid here`);
    const guarded = await failure(upstream.headersFor(connector(exchange(), false), jwtCaller));
    expect(guarded).toMatch(/private address 127\.0\.0\.1/);
  });
});
