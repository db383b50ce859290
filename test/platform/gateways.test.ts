import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { PlatformContext } from '../../src/platform/context.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, platformConfig, startTestProvider, type TestPlatform } from './helpers.js';

type Gateways = { items: { id: string; name: string; mcp_url: string }[] };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('connector gateways (%s)', (_name, target) => {
  let provider: OidcProvider;
  let platform: TestPlatform;
  let context: PlatformContext | undefined;
  const tokens = { alice: '', auditor: '', gone: '' };

  beforeAll(async () => {
    provider = await startTestProvider();
    platform = await createTestPlatform({
      target,
      config: {
        server: { publicUrl: 'https://platform.example.com/' },
        auth: oauthWith(provider, { resourceUrl: 'https://resource.example.com' }),
        connectorGateway: { gateways: [{ id: 'default', name: 'Default' }, { id: 'eu-1', name: 'Europe' }] },
      },
      extraRoutes: (platformContext) => {
        context = platformContext;
      },
    });
    const exp = nowSeconds() + 3600;
    tokens.alice = await provider.mint({ sub: 'alice', exp });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.gone = await provider.mint({ sub: 'gone', exp, claims: { preferred_username: 'gone' } });
  });
  afterAll(async () => {
    await platform.dispose();
    await provider.close();
  });

  it('lists the configured gateways, in order, with their MCP endpoints under server.publicUrl', async () => {
    const response = await platform.call<Gateways>('GET', '/v1/gateways', { token: tokens.alice });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      items: [
        { id: 'default', name: 'Default', mcp_url: 'https://platform.example.com/connector-gateway/v1/gateways/default/mcp' },
        { id: 'eu-1', name: 'Europe', mcp_url: 'https://platform.example.com/connector-gateway/v1/gateways/eu-1/mcp' },
      ],
    });
    expect((await platform.call('GET', '/v1/gateways', { token: tokens.auditor })).status).toBe(200);
  });

  it('answers 401 without a token, and to a directory user who is not active', async () => {
    const anonymous = await platform.call('GET', '/v1/gateways');
    expect(anonymous.status).toBe(401);
    expect(String(anonymous.headers['www-authenticate'])).toContain('resource_metadata=');

    expect((await platform.call('GET', '/v1/gateways', { token: tokens.gone })).status).toBe(200);
    if (!context) throw new Error('no platform context');
    await context.db.updateTable('users').set({ active: false }).where('user_name', '=', 'gone').execute();
    expect((await platform.call('GET', '/v1/gateways', { token: tokens.gone })).status).toBe(401);
  });
});

describe('connector gateways by default', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform();
  });
  afterAll(async () => {
    await platform.dispose();
  });

  it('serve one gateway "default", its MCP endpoint under the request\'s scheme and host', async () => {
    const response = await platform.call<Gateways>('GET', '/v1/gateways', { headers: { host: 'platform.internal:8090' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ items: [{ id: 'default', name: 'Default', mcp_url: 'http://platform.internal:8090/connector-gateway/v1/gateways/default/mcp' }] });
  });

  it('refuse a configuration with a malformed or repeated gateway id, naming the key', () => {
    expect(() => platformConfig({ connectorGateway: { gateways: [{ id: 'Default', name: 'x' }] } })).toThrow(/connectorGateway\.gateways\/0\/id|connectorGateway\.gateways\[0\]\.id/);
    expect(() => platformConfig({ connectorGateway: { gateways: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] } })).toThrow('connectorGateway.gateways[1].id: "a" is used by another gateway');
    expect(() => platformConfig({ connectorGateway: { gateways: [] } })).toThrow(/connectorGateway\.gateways/);
    expect(() => platformConfig({ secrets: { keyFile: '' } })).toThrow(/secrets\.keyFile/);
  });
});
