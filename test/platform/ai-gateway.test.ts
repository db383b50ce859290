import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, tempFile, type TestPlatform } from './helpers.js';

const BASE = '/ai-gateway/v1';

interface Model {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  display_name: string;
  context_window: number;
}
interface Whoami {
  subject: string;
  email: string;
  groups: string[];
  roles: string[];
  matchedPolicies: { name: string; description: string; mcpPolicy: { servers: string[] } }[];
  models: string[];
  unrestrictedModels: boolean;
}

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('AI gateway models and identities (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let writer = '';

  const get = <T>(path: string, token?: string) => platform.call<T>('GET', `${BASE}${path}`, token === undefined ? {} : { token });
  const createPolicy = async (name: string, spec: Record<string, unknown>, gateway = 'toolyard') => {
    const answer = await platform.call('POST', `${BASE}/policies`, { token: writer, body: { metadata: { name }, spec: { gatewayRef: { name: gateway }, ...spec } } });
    expect(answer.status, answer.text).toBe(201);
  };

  beforeAll(async () => {
    provider = await startTestProvider();
    const apiKeyFile = await tempFile('key', 'sk-test');
    platform = await createTestPlatform({
      target,
      config: {
        auth: oauthWith(provider),
        aiGateway: { gateway: { name: 'toolyard', namespace: 'ai' }, rateLimit: { requestsPerSecond: 0.001, burst: 40 } },
        llmGateway: {
          providers: [
            { name: 'openai', wireFormat: 'openai', baseUrl: 'https://openai.example/v1', apiKeyFile },
            { name: 'google', wireFormat: 'gemini', baseUrl: 'https://gemini.example', apiKeyFile },
          ],
          modelLimits: { 'openai/gpt-4o': { maxInputTokens: 1234, maxOutputTokens: 100 } },
        },
      },
    });
    writer = await provider.mint({ sub: 'writer', claims: { roles: ['aiPolicyAdmin'] } });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('names the gateway and namespace to any valid token, never rate limited, and lists no MCP servers', async () => {
    const token = await provider.mint({ sub: 'gary' });
    for (let attempt = 0; attempt < 45; attempt++) {
      const answer = await get('/gateway', token);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ name: 'toolyard', namespace: 'ai' });
    }
    expect((await get('/gateway')).status).toBe(401);
    const servers = await get<{ items: unknown[] }>('/mcp-servers', await provider.mint({ sub: 'sam' }));
    expect(servers.body).toEqual({ items: [] });
  });

  it('lists every priced model of a configured provider, sorted, while no policy names the gateway', async () => {
    const token = await provider.mint({ sub: 'nora' });
    const { status, body } = await get<{ object: string; data: Model[] }>('/models', token);
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    const ids = body.data.map((model) => model.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(body.data.find((model) => model.id === 'gpt-4o')).toEqual({ id: 'gpt-4o', object: 'model', created: expect.any(Number) as unknown, owned_by: 'openai', display_name: 'gpt-4o', context_window: 1234 });
    // gemini entries are served by the provider configured as "google" (the catalog's provider_aliases)
    expect(body.data.find((model) => model.id === 'gemini-2.0-flash')?.owned_by).toBe('google');
    expect(body.data.some((model) => model.id.startsWith('claude-'))).toBe(false);
    const whoami = await get<Whoami>('/whoami', token);
    expect(whoami.body).toMatchObject({ subject: 'nora', unrestrictedModels: true, matchedPolicies: [] });
    expect(whoami.body.models).toEqual(ids);
  });

  it('allows models only to callers a policy matches once one names the gateway, with claims matched exactly, numbers and booleans by their JSON text', async () => {
    await createPolicy('zeta-engineering', { description: 'engineers', mcpPolicy: { servers: ['github', 'jira'] }, principalMatchers: [{ claims: { groups: 'engineering' } }] });
    await createPolicy('alpha-level', { principalMatchers: [{ claims: { level: '3', staff: 'true' } }, { claims: { email: 'boss@example.com' } }] });
    await createPolicy('elsewhere', { principalMatchers: [{ claims: { groups: 'outsiders' } }] }, 'edge');

    const engineer = await provider.mint({ sub: 'erin', claims: { groups: ['engineering', 'all', 'engineering'], email: 'erin@example.com', roles: ['auditor', 'aiPolicyAdmin'] } });
    const me = await get<Whoami>('/whoami', engineer);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      subject: 'erin',
      email: 'erin@example.com',
      groups: ['all', 'engineering'],
      roles: ['aiPolicyAdmin', 'auditor'],
      matchedPolicies: [{ name: 'zeta-engineering', description: 'engineers', mcpPolicy: { servers: ['github', 'jira'] } }],
      unrestrictedModels: true,
    });
    expect(me.body.models.length).toBeGreaterThan(0);

    const levelled = await provider.mint({ sub: 'lev', claims: { level: 3, staff: true, groups: 'Engineering' } });
    const matched = await get<Whoami>('/whoami', levelled);
    expect(matched.body.groups).toEqual(['Engineering']);
    expect(matched.body.matchedPolicies).toEqual([{ name: 'alpha-level', description: '', mcpPolicy: { servers: [] } }]);

    for (const claims of [{ level: 3 }, { level: '3', staff: { yes: true } }, { groups: 'Engineering' }, { groups: ['outsiders'] }, {}]) {
      const outsider = await provider.mint({ sub: 'otto', claims });
      const answer = await get<Whoami>('/whoami', outsider);
      expect(answer.body, JSON.stringify(claims)).toMatchObject({ matchedPolicies: [], models: [], unrestrictedModels: false });
      expect((await get<{ data: Model[] }>('/models', outsider)).body).toEqual({ object: 'list', data: [] });
    }
  });

  it("takes the directory user's email when the token has none, and \"\" when neither has one", async () => {
    const token = await provider.mint({ sub: 'quiet' });
    expect((await get<Whoami>('/whoami', token)).body.email).toBe('');
    const admin = await provider.mint({ sub: 'root', claims: { roles: ['admin'] } });
    expect((await get<Whoami>('/whoami', admin)).body.roles).toEqual(['admin']);
  });
});

describe('AI gateway own-data operations', () => {
  it('answer 401 to a token without a directory user, while gateway identity still answers', async () => {
    const provider = await startTestProvider();
    const platform = await createTestPlatform({ config: { auth: oauthWith(provider), directory: { jitProvisioning: false } } });
    try {
      const token = await provider.mint({ sub: 'stranger' });
      const whoami = await platform.call<{ error: string; requestId: string }>('GET', `${BASE}/whoami`, { token });
      expect(whoami.status).toBe(401);
      expect(whoami.body.error).toBe('unauthenticated');
      expect((await platform.call('GET', `${BASE}/models`, { token })).status).toBe(401);
      expect((await platform.call('GET', `${BASE}/gateway`, { token })).status).toBe(200);
    } finally {
      await platform.dispose();
      await provider.close();
    }
  });

  it('keep the gateway closed with requirePolicy and no policy', async () => {
    const platform = await createTestPlatform({ config: { aiGateway: { requirePolicy: true } } });
    try {
      const whoami = await platform.call<Whoami>('GET', `${BASE}/whoami`);
      expect(whoami.body).toMatchObject({ subject: 'anonymous', models: [], unrestrictedModels: false, matchedPolicies: [] });
    } finally {
      await platform.dispose();
    }
  });
});
