import { access } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { PLATFORM_API_VERSION } from '../../src/platform/app.js';
import { loadPlatformConfig } from '../../src/platform/config.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('the platform service (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({ target, config: { auth: oauthWith(provider) } });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('answers health, readiness and version without a token', async () => {
    expect((await platform.call('GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await platform.call('GET', '/readiness')).body).toEqual({ status: 'ready' });
    const version = await platform.call<{ apiVersion: string }>('GET', '/version');
    expect(version.body.apiVersion).toBe(PLATFORM_API_VERSION);
  });

  it('serves its OpenAPI document and an interactive reference from the package, with no CDN', async () => {
    const document = await platform.call<{ openapi: string; paths: Record<string, unknown> }>('GET', '/openapi.json');
    expect(document.body.openapi).toBe('3.1.0');
    expect(Object.keys(document.body.paths)).toContain('/v1/audit-events');
    const page = await platform.call('GET', '/api/doc/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const scripts = [...page.text.matchAll(/src="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script).not.toMatch(/^(https?:)?\/\//);
      const asset = await platform.call('GET', new URL(script, 'http://platform/api/doc/').pathname);
      expect(asset.status, script).toBe(200);
    }
  });

  it('asks for a token with the RFC 9728 metadata URL, and refuses a token without the role', async () => {
    const anonymous = await platform.call('GET', '/v1/audit-events', { headers: { host: 'platform.test:8090' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toContain('resource_metadata="http://platform.test:8090/.well-known/oauth-protected-resource"');
    expect((anonymous.body as { error: string }).error).toContain('authentication required');
    const plain = await provider.mint({ sub: 'plain-user' });
    const refused = await platform.call('GET', '/v1/audit-events', { token: plain });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'reading the audit trail needs the role admin or auditor' });
    const auditor = await provider.mint({ sub: 'auditor', claims: { roles: ['auditor'] } });
    expect((await platform.call('GET', '/v1/audit-events', { token: auditor })).status).toBe(200);
  });

  it('answers a malformed audit cursor with a 400', async () => {
    const admin = await provider.mint({ sub: 'admin', claims: { roles: ['admin'] } });
    const response = await platform.call('GET', '/v1/audit-events?cursor=bm90LWEtY3Vyc29y', { token: admin });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'cursor: not a cursor of this list; start again without one' });
  });
});

describe('the platform in anonymous mode', () => {
  it('grants every role to every caller, as the user "anonymous"', async () => {
    const platform = await createTestPlatform();
    try {
      const events = await platform.call<{ events: { action: string; after: { user_name: string; source: string } }[] }>('GET', '/v1/audit-events?action=user.create');
      expect(events.status).toBe(200);
      expect(events.body.events.map((event) => [event.after.user_name, event.after.source])).toEqual([['anonymous', 'local']]);
    } finally {
      await platform.dispose();
    }
  });
});

describe('the example configurations', () => {
  it.each(['examples/platform.yaml', 'examples/platform-oauth.yaml'])('%s is valid, its files next to it', async (file) => {
    const config = await loadPlatformConfig(new URL(`../../${file}`, import.meta.url).pathname, {});
    for (const provider of config.llmGateway.providers) await expect(access(provider.apiKeyFile)).resolves.toBeUndefined();
    for (const key of config.signing?.keys ?? []) await expect(access(key.privateKeyFile)).resolves.toBeUndefined();
  });
});
