import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { nowSeconds, startLiveRegistry, startOidcProvider, type LiveRegistry, type OidcProvider } from '../helpers/oidc-provider.js';

/*
 * Authentication end to end: the real server on a port in front of local OpenID providers. Token
 * validation, the RFC 6750 challenges, JWKS caching and rotation, introspection of opaque tokens,
 * RFC 9728 metadata and the public paths. Nothing here depends on the database engine.
 */

const RESOURCE = 'https://registry.example.com';
const METADATA = `${RESOURCE}/.well-known/oauth-protected-resource`;
const BARE_CHALLENGE = `Bearer realm="mcp-registry", resource_metadata="${METADATA}"`;

interface Me {
  subject: string;
  roles: string[];
}

/** The attributes of a Bearer challenge, by name. */
function challenge(header: string | null | undefined): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...(header ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((match): [string, string] => [match[1] ?? '', match[2] ?? '']));
}

describe('authentication over HTTP', () => {
  let corp: OidcProvider;
  let partner: OidcProvider;
  let gone: OidcProvider;
  let cold: OidcProvider;
  let registry: LiveRegistry;
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    corp = await startOidcProvider({ audience: 'api://registry', introspectionClient: { id: 'registry', secret: 's3cret:with/odd&chars' } });
    // the partner answers introspection only for a client secret the registry does not have
    partner = await startOidcProvider({ audience: 'api://partner', introspectionClient: { id: 'registry', secret: 'the-right-one' } });
    gone = await startOidcProvider({ audience: 'api://gone' });
    cold = await startOidcProvider({ audience: 'api://cold' });
    await gone.close();
    const secrets = await mkdtemp(join(tmpdir(), 'toolyard-auth-'));
    await writeFile(join(secrets, 'corp'), 's3cret:with/odd&chars\n');
    await writeFile(join(secrets, 'partner'), 'a-wrong-one\n');
    registry = await startLiveRegistry({
      clock,
      config: {
        auth: {
          mode: 'oauth',
          oauth: {
            resourceUrl: RESOURCE,
            resourceDocumentation: 'https://docs.example.com/registry',
            publicPaths: ['/custom/public'],
            providers: [
              { name: 'corp', issuerUrl: corp.issuer, audience: corp.audience, clientId: 'registry', clientSecretFile: join(secrets, 'corp') },
              { name: 'partner', issuerUrl: partner.issuer, audience: partner.audience, clientId: 'registry', clientSecretFile: join(secrets, 'partner') },
              { name: 'gone', issuerUrl: gone.issuer, audience: gone.audience },
              { name: 'cold', issuerUrl: cold.issuer, audience: cold.audience },
              // the same identity provider once more, for a second audience
              { name: 'corp-tools', issuerUrl: corp.issuer, audience: 'api://registry-tools' },
            ],
          },
          authz: {
            roles: {
              superAdmin: [{ role: 'super-admin' }],
              manageSources: [{ org: 'acme', role: 'admin' }],
              manageRegistries: [{ org: 'acme', role: 'admin' }],
              manageEntries: [{ role: 'writer' }, { team: ['platform', 'data'] }],
            },
          },
        },
      },
    });
  });
  afterAll(async () => {
    expect(await registry.serverErrors()).toEqual([]);
    await registry.close();
    await corp.close();
    await partner.close();
    await cold.close();
  });

  const me = (token: string) => registry.call<Me>('GET', '/v1/me', { token });
  const meWith = (authorization: string) => registry.call<{ error: string }>('GET', '/v1/me', { headers: { authorization } });

  describe('requests without a valid token', () => {
    it('answers 401 with a bare challenge (realm and resource_metadata, no error) when no credentials are sent', async () => {
      for (const [method, path] of [
        ['GET', '/v1/me'],
        ['GET', '/v1/sources'],
        ['GET', '/v1/registries'],
        ['GET', '/registry/anything/v0.1/servers'],
        ['POST', '/v1/entries'],
        ['DELETE', '/v1/sources/x'],
        ['GET', '/no/such/route'],
      ] as const) {
        const response = await registry.call<{ error: string }>(method, path);
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe(BARE_CHALLENGE);
        expect(Object.keys(response.body)).toEqual(['error']);
        expect(response.headers.get('cache-control')).toBe('no-store');
      }
      // an empty header carries no credentials either
      const empty = await meWith('');
      expect(empty.status).toBe(401);
      expect(empty.headers.get('www-authenticate')).toBe(BARE_CHALLENGE);
    });

    it.each([
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['the scheme alone', 'Bearer'],
      ['two tokens', 'Bearer abc def'],
      ['a token with a quote', 'Bearer abc"def'],
      ['no space after the scheme', 'Bearerabc'],
      ['a token-like scheme', 'Token abc'],
    ])('answers 401 invalid_request to a malformed Authorization header: %s', async (_label, header) => {
      const response = await meWith(header);
      expect(response.status).toBe(401);
      const attributes = challenge(response.headers.get('www-authenticate'));
      expect(attributes).toMatchObject({ realm: 'mcp-registry', error: 'invalid_request', resource_metadata: METADATA });
    });

    it('takes the Bearer scheme name in any case (RFC 7235) and more than one space before the token (RFC 6750)', async () => {
      const token = await corp.mint({ sub: 'casual', claims: { role: 'writer' } });
      for (const header of [`bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`]) {
        expect((await registry.call('GET', '/v1/me', { headers: { authorization: header } })).status, header).toBe(200);
      }
    });

    const invalid: [string, () => Promise<string>, RegExp][] = [
      ['a token that is not a JWT', () => Promise.resolve('not-a-jwt'), /not a JWT/],
      ['three dots of nonsense', () => Promise.resolve('a.b.c'), /well-formed/],
      ['a forged signature under a published kid', () => corp.mint({ sub: 'eve', forge: true }), /signature/],
      [
        'a payload changed after signing',
        async () => {
          const [header, , signature] = (await corp.mint({ sub: 'eve', claims: { role: 'writer' } })).split('.');
          const payload = Buffer.from(JSON.stringify({ sub: 'eve', role: 'super-admin', iss: corp.issuer, aud: corp.audience, exp: nowSeconds() + 600 })).toString('base64url');
          return `${header}.${payload}.${signature}`;
        },
        /signature/,
      ],
      ['an ES256 token with a forged signature', () => corp.mint({ sub: 'eve', alg: 'ES256', forge: true }), /signature/],
      ['a token expired 60 s ago', () => corp.mint({ sub: 'late', exp: nowSeconds() - 60 }), /expired/],
      ['a token valid only 60 s from now (nbf)', () => corp.mint({ sub: 'early', nbf: nowSeconds() + 60 }), /not valid yet/],
      ['a token without exp', () => corp.mint({ sub: 'forever', exp: null }), /exp/],
      ['a token for another audience', () => corp.mint({ sub: 'lost', aud: 'api://elsewhere' }), /audience/],
      ['a token for several audiences, none of them ours', () => corp.mint({ sub: 'lost', aud: ['api://a', 'api://b'] }), /audience/],
      ["a corp token carrying the partner's audience", () => corp.mint({ sub: 'lost', aud: partner.audience }), /audience/],
      ['a token from an issuer not configured', () => corp.mint({ sub: 'stranger', iss: 'https://evil.example.com' }), /issuer/],
      ["a token naming the partner as issuer but signed with corp's key", () => corp.mint({ sub: 'eve', iss: partner.issuer, aud: partner.audience }), /key/],
      ['a symmetric HS256 token', () => corp.mint({ sub: 'eve', alg: 'HS256' }), /algorithm/],
      ['an unsigned token (alg none)', () => corp.mint({ sub: 'eve', alg: 'none' }), /.+/],
      ['a token carrying its own key in the header (jwk)', () => corp.mint({ sub: 'eve', embedJwk: true }), /signature/],
      ['a token under a kid that was never published', () => corp.mint({ sub: 'eve', kid: 'no-such-key' }), /key/],
      ['a token from a provider that cannot be reached', () => gone.mint({ sub: 'orphan' }), /unreachable/],
    ];
    it.each(invalid)('answers 401 invalid_token to %s', async (_label, make, description) => {
      const response = await me(await make());
      expect(response.status).toBe(401);
      const attributes = challenge(response.headers.get('www-authenticate'));
      expect(attributes).toMatchObject({ realm: 'mcp-registry', error: 'invalid_token', resource_metadata: METADATA });
      expect(attributes.error_description).toMatch(description);
      expect(Object.keys(response.body)).toEqual(['error']);
    });
  });

  describe('valid tokens', () => {
    it('answers /v1/me with the subject and the roles of the token', async () => {
      const response = await me(await corp.mint({ sub: 'alice@acme', claims: { org: 'acme', role: ['admin', 'writer'] } }));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ subject: 'alice@acme', roles: ['manageSources', 'manageRegistries', 'manageEntries'] });
    });

    it('accepts small clock skew: exp 10 s ago and nbf 10 s ahead', async () => {
      expect((await me(await corp.mint({ sub: 'skew', exp: nowSeconds() - 10 }))).status).toBe(200);
      expect((await me(await corp.mint({ sub: 'skew', nbf: nowSeconds() + 10 }))).status).toBe(200);
    });

    it('accepts an audience list that holds ours, ES256 tokens and tokens without kid', async () => {
      expect((await me(await corp.mint({ sub: 'multi', aud: ['api://other', corp.audience] }))).status).toBe(200);
      expect((await me(await corp.mint({ sub: 'ec', alg: 'ES256' }))).body).toEqual({ subject: 'ec', roles: [] });
      expect((await me(await corp.mint({ sub: 'no-kid', kid: null }))).status).toBe(200);
    });

    it('accepts a token of the second provider, with its own audience', async () => {
      const response = await me(await partner.mint({ sub: 'bob@partner', claims: { team: 'data' } }));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ subject: 'bob@partner', roles: ['manageEntries'] });
      const fetches = partner.counts.jwks;
      expect((await me(await partner.mint({ sub: 'carol@partner', alg: 'ES256' }))).status).toBe(200);
      expect(partner.counts.jwks).toBe(fetches);
      expect(partner.counts.discovery).toBe(1);
    });

    it('fetches discovery and the JWKS of a provider once, even for a burst of first requests', async () => {
      const tokens = await Promise.all(Array.from({ length: 20 }, (_, index) => cold.mint({ sub: `burst-${index}` })));
      const responses = await Promise.all(tokens.map((token) => me(token)));
      expect(responses.map((response) => response.status)).toEqual(tokens.map(() => 200));
      expect(cold.counts).toEqual({ discovery: 1, jwks: 1, introspection: 0 });
    });

    it('fetches discovery and the JWKS once, then serves many requests from the cache', async () => {
      expect((await me(await corp.mint({ sub: 'warm-up' }))).status).toBe(200);
      const before = { ...corp.counts };
      const tokens = await Promise.all(Array.from({ length: 30 }, (_, index) => corp.mint({ sub: `user-${index}`, alg: index % 2 === 0 ? 'RS256' : 'ES256' })));
      const responses = await Promise.all(tokens.map((token) => me(token)));
      expect(responses.map((response) => response.status)).toEqual(tokens.map(() => 200));
      // the same tokens again are not even verified twice
      expect((await Promise.all(tokens.map((token) => me(token)))).every((response) => response.status === 200)).toBe(true);
      expect(corp.counts).toEqual(before);
      expect(corp.counts.discovery).toBe(1);
    });

    it('refetches the JWKS for an unknown kid after a key rotation, and only then', async () => {
      const usedBefore = await corp.mint({ sub: 'before-rotation' });
      const unusedBefore = await corp.mint({ sub: 'signed-with-the-old-key' });
      expect((await me(usedBefore)).status).toBe(200);
      const oldKid = corp.kid();
      await corp.rotate();
      expect(corp.kid()).not.toBe(oldKid);
      const fetches = corp.counts.jwks;

      const rotated = await corp.mint({ sub: 'after-rotation' });
      expect((await me(rotated)).body).toEqual({ subject: 'after-rotation', roles: [] });
      expect(corp.counts.jwks).toBe(fetches + 1);
      for (let index = 0; index < 5; index += 1) expect((await me(await corp.mint({ sub: `after-${index}`, alg: index % 2 ? 'ES256' : 'RS256' }))).status).toBe(200);
      expect(corp.counts.jwks).toBe(fetches + 1);

      // a token verified before the rotation stays verified until it expires; the old key itself is gone
      expect((await me(usedBefore)).status).toBe(200);
      const refused = await me(unusedBefore);
      expect(refused.status).toBe(401);
      expect(challenge(refused.headers.get('www-authenticate')).error).toBe('invalid_token');
    });

    it('accepts a token for either audience of an issuer configured twice (one provider entry per audience)', async () => {
      expect((await me(await corp.mint({ sub: 'tools', aud: 'api://registry-tools' }))).status).toBe(200);
      expect((await me(await corp.mint({ sub: 'main', aud: corp.audience }))).status).toBe(200);
      expect((await me(await corp.mint({ sub: 'neither', aud: 'api://neither' }))).status).toBe(401);
    });

    it('keeps a verified token only until it expires (with the 30 s skew)', async () => {
      const token = await corp.mint({ sub: 'short-lived', exp: nowSeconds() + 5 });
      expect((await me(token)).status).toBe(200);
      offsetMs = 20_000;
      try {
        expect((await me(token)).status).toBe(200);
        offsetMs = 40_000;
        const expired = await me(token);
        expect(expired.status).toBe(401);
        expect(challenge(expired.headers.get('www-authenticate')).error_description).toMatch(/expired/);
      } finally {
        offsetMs = 0;
      }
    });
  });

  describe('opaque tokens (RFC 7662 introspection)', () => {
    it('accepts an active opaque token, authenticating to the provider as its client, and caches the answer', async () => {
      const token = corp.opaque({ sub: 'svc-deploy', claims: { role: 'writer', org: 'acme' } });
      const before = corp.counts.introspection;
      const response = await me(token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ subject: 'svc-deploy', roles: ['manageEntries'] });
      expect(corp.counts.introspection).toBe(before + 1);
      expect((await me(token)).status).toBe(200);
      expect(corp.counts.introspection).toBe(before + 1);
    });

    it.each([
      ['an inactive token', () => corp.opaque({ sub: 'revoked', active: false })],
      ['a token for another audience', () => corp.opaque({ sub: 'lost', aud: 'api://elsewhere' })],
      ['an expired token', () => corp.opaque({ sub: 'late', exp: nowSeconds() - 60 })],
      ['a token naming another issuer', () => corp.opaque({ sub: 'odd', iss: 'https://evil.example.com' })],
      ['a token nobody issued', () => 'unknown-opaque-token'],
    ])('refuses %s with 401 invalid_token', async (_label, make) => {
      const response = await me(make());
      expect(response.status).toBe(401);
      expect(challenge(response.headers.get('www-authenticate')).error).toBe('invalid_token');
    });

    it('refuses a token of a provider that does not accept the registry as its client', async () => {
      const before = partner.counts.introspection;
      const response = await me(partner.opaque({ sub: 'partner-svc' }));
      expect(response.status).toBe(401);
      expect(partner.counts.introspection).toBe(before + 1);
    });
  });

  describe('public paths', () => {
    it('serves the RFC 9728 metadata', async () => {
      const response = await registry.call('GET', '/.well-known/oauth-protected-resource');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        resource: RESOURCE,
        authorization_servers: [corp.issuer, partner.issuer, gone.issuer, cold.issuer, corp.issuer],
        scopes_supported: ['mcp-registry:read', 'mcp-registry:write'],
        bearer_methods_supported: ['header'],
        resource_documentation: 'https://docs.example.com/registry',
      });
    });

    it.each([
      ['/health', 200],
      ['/health?verbose=1', 200],
      ['/readiness', 200],
      ['/version', 200],
      ['/openapi.json', 200],
      ['/metrics', 200],
      ['/.well-known/oauth-protected-resource', 200],
      ['/.well-known/openid-configuration', 404],
      ['/custom/public', 404],
      ['/custom/public/', 404],
      ['/custom/public/deeper/page', 404],
    ])('serves %s without a token (%i)', async (path, status) => {
      const response = await registry.raw(path);
      expect(response.status).toBe(status);
      expect(response.headers['www-authenticate']).toBeUndefined();
    });

    it('serves public paths whatever credentials come along', async () => {
      expect((await registry.raw('/health', { authorization: 'Bearer not-a-valid-token' })).status).toBe(200);
      expect((await registry.raw('/version', { authorization: 'Basic Zm9vOmJhcg==' })).status).toBe(200);
    });

    it.each([
      '/custom/public/../v1/sources',
      '/custom/public/../../v1/sources',
      '/custom/public%2F..%2Fv1%2Fsources',
      '/custom/public%2f..%2fv1%2fsources',
      '/custom/public/%2e%2e/v1/sources',
      '/custom/public/%2E%2E/v1/sources',
      '/custom/public/.%2e/v1/sources',
      '/custom/public/..%2fv1/sources',
      '/custom/public/%2e%2e%2fv1%2fsources',
      '/custom/public/./../v1/sources',
      '/custom/public\\..\\v1\\sources',
      '/custom/public%5c..%5cv1%5csources',
      '/custom/publicity',
      '/custom/public-but-not-really/x',
      '/custom',
      '/health/../v1/me',
      '/health/%2e%2e/v1/me',
      '/health%2F..%2Fv1%2Fme',
      '/healthz',
      '/HEALTH',
      '//health',
      '/.well-known/../v1/me',
      '/.well-known/%2e%2e/v1/me',
      '/.well-known%2f..%2fv1%2fme',
      '/%2e%2e/v1/me',
      '/v1/me?next=/health',
      '/metrics/../v1/sources',
      '/openapi.json/../v1/sources',
    ])('does not let %s pass as public (401 without a token)', async (path) => {
      const response = await registry.raw(path);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe(BARE_CHALLENGE);
    });

    it('keeps the protected routes protected under every spelling, and the tricks reach no route with a token', async () => {
      const token = await corp.mint({ sub: 'root', claims: { role: 'super-admin' } });
      expect((await registry.raw('/v1/sources', { authorization: `Bearer ${token}` })).status).toBe(200);
      for (const path of ['/custom/public/../v1/sources', '/custom/public%2F..%2Fv1%2Fsources', '/health/../v1/me']) {
        expect((await registry.raw(path, { authorization: `Bearer ${token}` })).status, path).toBe(404);
      }
    });
  });
});
