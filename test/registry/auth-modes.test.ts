import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { catalogFile, registryConfig } from '../helpers/registry.js';
import { startLiveRegistry, startOidcProvider, type LiveRegistry, type OidcProvider } from '../helpers/oidc-provider.js';

/*
 * The two modes besides full authorization, end to end: auth-only (oauth without authz: a valid token
 * is needed, then everything is allowed) and anonymous (no authentication at all). Plus the
 * configuration rules for claims and the explicit jwksUrl of a provider.
 */

const catalog = (...names: string[]) => ({ version: '1.0.0', meta: {}, data: { servers: names.map((name) => ({ name, version: '1.0.0', description: name })) } });

interface ServerList {
  servers: { server: { name: string } }[];
}

let corp: OidcProvider;
let files: { labeled: string; unlabeled: string };

beforeAll(async () => {
  corp = await startOidcProvider({ audience: 'api://registry' });
  files = { labeled: await catalogFile(catalog('com.acme/labeled')), unlabeled: await catalogFile(catalog('com.none/unlabeled')) };
});
afterAll(() => corp.close());

const resources = () => ({
  sources: [
    { name: 'internal', managed: {}, claims: { org: 'acme' } },
    { name: 'labeled', file: { path: files.labeled }, claims: { org: 'acme' } },
    { name: 'unlabeled', file: { path: files.unlabeled } },
  ],
  registries: [
    { name: 'gated', sources: ['internal', 'labeled', 'unlabeled'], claims: { org: 'globex' } },
    { name: 'nolabel', sources: ['internal', 'labeled', 'unlabeled'] },
  ],
});

describe.each(testDatabaseTargets())('auth modes over HTTP ($name)', (target) => {
  describe('auth-only (oauth without authz)', () => {
    let registry: LiveRegistry;
    const warnings: string[] = [];

    beforeAll(async () => {
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
          if (line.level === 40) warnings.push(line.msg);
          done();
        },
      });
      registry = await startLiveRegistry({
        target,
        logger: pino({ level: 'warn' }, sink),
        config: {
          ...resources(),
          auth: {
            mode: 'oauth',
            oauth: {
              resourceUrl: 'https://registry.example.com/',
              providers: [{ name: 'corp', issuerUrl: corp.issuer, audience: corp.audience, jwksUrl: corp.jwksUri }],
            },
          },
        },
      });
    });
    afterAll(async () => {
      expect(await registry.serverErrors()).toEqual([]);
      await registry.close();
    });

    it('warns at start that every valid token may do everything', () => {
      expect(warnings.some((message) => /auth-only/.test(message))).toBe(true);
    });

    it('still requires a valid token', async () => {
      const none = await registry.call('GET', '/v1/sources');
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mcp-registry", resource_metadata="https://registry.example.com/.well-known/oauth-protected-resource"');
      const expired = await registry.call('GET', '/v1/sources', { token: await corp.mint({ sub: 'late', exp: Math.floor(Date.now() / 1000) - 120 }) });
      expect(expired.status).toBe(401);
      expect(expired.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    });

    it('reports every role on /v1/me, whatever the claims', async () => {
      const token = await corp.mint({ sub: 'plain-user' });
      expect((await registry.call('GET', '/v1/me', { token })).body).toEqual({ subject: 'plain-user', roles: ['superAdmin', 'manageSources', 'manageRegistries', 'manageEntries'] });
    });

    it('filters nothing and lets every write through, claims or not', async () => {
      const token = await corp.mint({ sub: 'plain-user', claims: { org: 'initech' } });
      const call = (method: string, path: string, body?: unknown) => registry.call<{ error: string }>(method, path, { token, ...(body !== undefined && { body }) });
      expect((await call('GET', '/v1/sources/unlabeled')).status).toBe(200);
      expect((await call('GET', '/v1/registries/gated')).status).toBe(200);
      for (const registryName of ['gated', 'nolabel']) {
        const list = await registry.call<ServerList>('GET', `/registry/${registryName}/v0.1/servers`, { token });
        expect(list.status).toBe(200);
        expect(list.body.servers.map((record) => record.server.name).sort()).toEqual(['com.acme/labeled', 'com.none/unlabeled']);
      }
      expect((await call('PUT', '/v1/sources/made', { file: { data: catalog('com.made/one') }, claims: { org: 'not-mine' } })).status).toBe(201);
      expect((await call('PUT', '/v1/registries/made', { sources: ['made'], claims: { org: 'not-mine' } })).status).toBe(201);
      expect((await call('DELETE', '/v1/registries/made')).status).toBe(204);
      expect((await call('DELETE', '/v1/sources/made')).status).toBe(204);
    });

    it('still requires non-empty claims to publish (400), then skips the subset and visibility rules', async () => {
      const token = await corp.mint({ sub: 'publisher' });
      const publish = (body: Record<string, unknown>) => registry.call<{ error: string }>('POST', '/v1/entries', { token, body: { server: { name: 'io.pub/free', version: '1.0.0' }, ...body } });
      const missing = await publish({});
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatch(/claims/);
      expect((await publish({ claims: {} })).status).toBe(400);
      expect((await publish({ claims: { org: 'not-mine', team: ['a', 'b'] } })).status).toBe(201);
      expect((await registry.call('GET', '/registry/gated/v0.1/servers/io.pub%2Ffree/versions/1.0.0', { token })).status).toBe(200);
      expect((await registry.call('GET', '/v1/entries/server/io.pub%2Ffree/claims', { token })).body).toEqual({ claims: { org: 'not-mine', team: ['a', 'b'] } });
      expect((await registry.call('PUT', '/v1/entries/server/io.pub%2Ffree/claims', { token, body: { claims: {} } })).status).toBe(204);
      expect((await registry.call('GET', '/registry/nolabel/v0.1/servers/io.pub%2Ffree/versions/1.0.0', { token })).status).toBe(200);
    });

    it('serves RFC 9728 metadata without resource_documentation when none is configured', async () => {
      const response = await registry.call('GET', '/.well-known/oauth-protected-resource');
      expect(response.body).toEqual({
        resource: 'https://registry.example.com/',
        authorization_servers: [corp.issuer],
        scopes_supported: ['mcp-registry:read', 'mcp-registry:write'],
        bearer_methods_supported: ['header'],
      });
    });

    it('reads keys from a configured jwksUrl without OIDC discovery', () => {
      expect(corp.counts.discovery).toBe(0);
      expect(corp.counts.jwks).toBeGreaterThan(0);
    });
  });

  describe('anonymous', () => {
    let registry: LiveRegistry;

    beforeAll(async () => {
      registry = await startLiveRegistry({ target, config: { ...resources(), auth: { mode: 'anonymous' } } });
    });
    afterAll(async () => {
      expect(await registry.serverErrors()).toEqual([]);
      await registry.close();
    });

    it('answers /v1/me with 401, with or without a token', async () => {
      expect((await registry.call('GET', '/v1/me')).status).toBe(401);
      expect((await registry.call('GET', '/v1/me', { token: await corp.mint({ sub: 'someone', claims: { role: 'super-admin' } }) })).status).toBe(401);
    });

    it('serves and changes everything without a token, ignoring any Authorization header', async () => {
      expect((await registry.call<{ sources: unknown[] }>('GET', '/v1/sources')).body.sources).toHaveLength(3);
      expect((await registry.call('GET', '/v1/sources', { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(200);
      expect((await registry.call('GET', '/v1/sources', { headers: { authorization: 'Basic Zm9vOmJhcg==' } })).status).toBe(200);
      for (const registryName of ['gated', 'nolabel']) {
        const list = await registry.call<ServerList>('GET', `/registry/${registryName}/v0.1/servers`);
        expect(list.body.servers.map((record) => record.server.name).sort()).toEqual(['com.acme/labeled', 'com.none/unlabeled']);
      }
      expect((await registry.call('PUT', '/v1/registries/made', { body: { sources: ['unlabeled'] } })).status).toBe(201);
      expect((await registry.call('DELETE', '/v1/registries/made')).status).toBe(204);
    });

    it('publishes without claims: they are mandatory only when authentication is on', async () => {
      expect((await registry.call('POST', '/v1/entries', { body: { server: { name: 'io.pub/open', version: '1.0.0' } } })).status).toBe(201);
      expect((await registry.call('GET', '/v1/entries/server/io.pub%2Fopen/claims')).body).toEqual({ claims: {} });
      expect((await registry.call('GET', '/registry/nolabel/v0.1/servers/io.pub%2Fopen/versions/1.0.0')).status).toBe(200);
    });
  });
});

describe('claims in the configuration', () => {
  const oauth = { resourceUrl: 'https://registry.example.com', providers: [{ name: 'corp', issuerUrl: 'https://sso.example.com', audience: 'api://registry' }] };

  it.each([
    ['a number in a role map', { auth: { mode: 'oauth', oauth, authz: { roles: { manageEntries: [{ team: 5 }] } } } }, /manageEntries/],
    ['an object in a role map', { auth: { mode: 'oauth', oauth, authz: { roles: { superAdmin: [{ role: { admin: true } }] } } } }, /superAdmin/],
    ['an empty role map', { auth: { mode: 'oauth', oauth, authz: { roles: { superAdmin: [{}] } } } }, /superAdmin/],
    ['an unknown role', { auth: { mode: 'oauth', oauth, authz: { roles: { readEverything: [{ role: 'x' }] } } } }, /readEverything/],
    ['a number in source claims', { sources: [{ name: 'm', managed: {}, claims: { org: 1 } }] }, /claims/],
    ['a list of numbers in registry claims', { registries: [{ name: 'r', sources: [], claims: { org: [1, 2] } }] }, /claims/],
    ['an http issuer off loopback', { auth: { mode: 'oauth', oauth: { ...oauth, providers: [{ name: 'corp', issuerUrl: 'http://sso.example.com', audience: 'a' }] } } }, /issuerUrl/],
    ['oauth without providers', { auth: { mode: 'oauth', oauth: { ...oauth, providers: [] } } }, /providers/],
    ['oauth without its block', { auth: { mode: 'oauth' } }, /auth\.oauth/],
  ])('refuses %s', (_label, document, message) => {
    expect(() => registryConfig(document)).toThrow(message);
  });

  it('takes strings and lists of strings', () => {
    expect(() =>
      registryConfig({
        sources: [{ name: 'm', managed: {}, claims: { org: 'acme', team: ['a', 'b'] } }],
        auth: { mode: 'oauth', oauth, authz: { roles: { manageEntries: [{ role: 'writer' }, { team: ['platform', 'data'] }] } } },
      }),
    ).not.toThrow();
  });
});
