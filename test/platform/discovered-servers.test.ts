import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { CredentialError } from '../../src/platform/connector-credentials/index.js';
import type { Connector } from '../../src/platform/connectors/schemas.js';
import type { DiscoveredServer } from '../../src/platform/discovered-servers/schemas.js';
import { exported, service, startFakeKubernetes, type FakeKubernetes } from '../helpers/fake-kubernetes.js';
import { nowSeconds, type OidcProvider } from '../helpers/oidc-provider.js';
import { createTestPlatform, oauthWith, startTestProvider, type TestPlatform } from './helpers.js';

const CRD = 'toolyard.dev/v1alpha1/mcpservers';
const PATH = '/v1/gateways/default/discovered-servers';
type Listing = { servers: DiscoveredServer[]; error: string };

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('discovered MCP servers (%s)', (_name, target) => {
  let provider: OidcProvider;
  let kube: FakeKubernetes;
  let platform: TestPlatform;
  const tokens = { connector: '', auditor: '', alice: '' };

  const list = (token = tokens.auditor, path = PATH) => platform.call<Listing>('GET', path, { token });
  const connector = async (gateway: string, name: string, endpoint: string, auth: Record<string, unknown> = { type: 'none' }) => {
    const response = await platform.call<Connector>('POST', `/v1/gateways/${gateway}/connectors`, {
      token: tokens.connector,
      body: { name, endpoint, transport: 'streamable-http', auth, allow_private_ips: true },
    });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };

  beforeAll(async () => {
    [provider, kube] = await Promise.all([startTestProvider(), startFakeKubernetes()]);
    const group = { 'toolyard.dev/mcp-group': 'research' };
    kube.apply('services', service('tools', 'weather', exported('io.example/weather'), 8081));
    kube.apply('services', service('tools', 'search', { 'toolyard.dev/registry-export': 'true', 'toolyard.dev/registry-transport': 'sse', 'toolyard.dev/registry-url': 'https://search.example.invalid/sse', ...group }));
    kube.apply('services', service('tools', 'plain', undefined));
    kube.apply('services', service('tools', 'broken', exported('io.example/broken', { 'toolyard.dev/registry-transport': 'stdio' })));
    kube.apply('services', service('alpha', 'zeta', exported('io.example/zeta'), 9000));
    kube.apply('services', service('elsewhere', 'ignored', exported('io.example/ignored')));
    kube.apply(CRD, { kind: 'MCPServer', metadata: { name: 'fetch', namespace: 'tools', annotations: { 'toolyard.dev/registry-export': 'true', ...group } }, spec: { port: 7000 }, status: { phase: 'Running' } });
    kube.apply('secrets', { kind: 'Secret', metadata: { name: 'api', namespace: 'tools' }, data: { token: Buffer.from('value-from-the-cluster').toString('base64') } });
    platform = await createTestPlatform({
      target,
      config: {
        auth: oauthWith(provider),
        connectorGateway: {
          gateways: [{ id: 'default', name: 'Default' }, { id: 'eu', name: 'EU' }],
          discovery: { kubeconfig: await kube.writeKubeconfig(), namespaces: ['tools', 'alpha'], resources: [{ group: 'toolyard.dev', version: 'v1alpha1', plural: 'mcpservers' }] },
        },
      },
    });
    const exp = nowSeconds() + 3600;
    tokens.connector = await provider.mint({ sub: 'connie', exp, claims: { roles: ['connectorAdmin'] } });
    tokens.auditor = await provider.mint({ sub: 'audrey', exp, claims: { roles: ['auditor'] } });
    tokens.alice = await provider.mint({ sub: 'alice', exp });
  }, 60_000);
  afterAll(async () => {
    await platform.dispose();
    await Promise.all([provider.close(), kube.close()]);
  });

  it('lists the exported Services and custom resources of the configured namespaces by namespace and name', async () => {
    const response = await list();
    expect(response.status, response.text).toBe(200);
    expect(response.body.servers).toEqual([
      { allow_private_ips: true, endpoint: 'http://zeta.alpha.svc.cluster.local:9000/mcp', existing_connectors: [], group: '', health: 'Unknown', name: 'zeta', namespace: 'alpha', transport: 'streamable-http' },
      { allow_private_ips: true, endpoint: 'http://fetch.tools.svc.cluster.local:7000/mcp', existing_connectors: [], group: 'research', health: 'Running', name: 'fetch', namespace: 'tools', transport: 'streamable-http' },
      { allow_private_ips: false, endpoint: 'https://search.example.invalid/sse', existing_connectors: [], group: 'research', health: 'Unknown', name: 'search', namespace: 'tools', transport: 'sse' },
      { allow_private_ips: true, endpoint: 'http://weather.tools.svc.cluster.local:8081/mcp', existing_connectors: [], group: '', health: 'Unknown', name: 'weather', namespace: 'tools', transport: 'streamable-http' },
    ]);
  });

  it("names the gateway's own connectors already holding an endpoint, compared normalised", async () => {
    const held = await connector('default', 'Weather', 'HTTP://Weather.Tools.svc.cluster.local:8081/mcp');
    const again = await connector('default', 'Search', 'https://SEARCH.example.invalid:443/sse');
    await connector('eu', 'Weather EU', 'http://weather.tools.svc.cluster.local:8081/mcp');
    const servers = (await list()).body.servers;
    expect(servers.find((server) => server.name === 'weather')?.existing_connectors).toEqual([{ id: held.id, name: 'Weather' }]);
    expect(servers.find((server) => server.name === 'search')?.existing_connectors).toEqual([{ id: again.id, name: 'Search' }]);
    expect(servers.find((server) => server.name === 'zeta')?.existing_connectors).toEqual([]);
    const eu = (await list(tokens.auditor, '/v1/gateways/eu/discovered-servers')).body.servers;
    expect(eu.find((server) => server.name === 'weather')?.existing_connectors.map((holder) => holder.name)).toEqual(['Weather EU']);
  });

  it('is for connector administrators and auditors, on a configured gateway', async () => {
    expect((await list(tokens.connector)).status).toBe(200);
    const denied = await list(tokens.alice);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatch(/listing discovered MCP servers/);
    expect((await platform.call('GET', PATH)).status).toBe(401);
    const unknown = await list(tokens.auditor, '/v1/gateways/nowhere/discovered-servers');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/no connector gateway with id "nowhere"/);
  });

  it('reads cluster_secret references through the discovery cluster at use time', async () => {
    const created = await connector('default', 'Cluster keyed', 'https://keyed.example.invalid/mcp', {
      type: 'header_injection',
      header_injection: { header_name: 'X-Api-Key', value: { cluster_secret: { namespace: 'tools', name: 'api', key: 'token' } } },
    });
    const row = await platform.database.db.selectFrom('connectors').select(['id', 'auth', 'provider_id', 'allow_private_ips']).where('id', '=', created.id).executeTakeFirstOrThrow();
    const caller = { token: null, issuer: null };
    expect(await platform.features.credentials.headersFor(row, caller)).toEqual({ 'X-Api-Key': 'value-from-the-cluster' });
    kube.apply('secrets', { kind: 'Secret', metadata: { name: 'api', namespace: 'tools' }, data: { token: Buffer.from('rotated').toString('base64') } });
    expect(await platform.features.credentials.headersFor(row, caller)).toEqual({ 'X-Api-Key': 'rotated' });
    kube.remove('secrets', 'tools', 'api');
    const missing = await platform.features.credentials.headersFor(row, caller).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CredentialError);
    expect((missing as Error).message).toBe('auth.header_injection.value: cannot read key "token" of Secret tools/api from the discovery cluster: Secret tools/api does not exist');
  });

  it('answers 503 naming the cluster when it cannot be read', async () => {
    await kube.close();
    const response = await list();
    expect(response.status).toBe(503);
    expect(response.body.error).toMatch(/^the discovery cluster \(connectorGateway.discovery\) cannot be read: services in tools: /);
  });
});

describe('discovered MCP servers without a discovery cluster', () => {
  it('answers 503 saying connectorGateway.discovery is not configured', async () => {
    const platform = await createTestPlatform();
    try {
      const response = await platform.call<{ error: string }>('GET', PATH);
      expect(response.status).toBe(503);
      expect(response.body.error).toBe('connectorGateway.discovery is not configured: discovered servers come from the Kubernetes cluster it names');
    } finally {
      await platform.dispose();
    }
  });
});
