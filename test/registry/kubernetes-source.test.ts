import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exported, service, startFakeKubernetes, waitFor, type FakeKubernetes, type FakeObject } from '../helpers/fake-kubernetes.js';
import { createTestRegistry, type TestRegistry } from '../helpers/registry.js';

interface ServerList {
  servers: { server: { name: string; version: string; title?: string; description: string; remotes: { type: string; url: string }[] } }[];
}
interface SourceEntries {
  entries: { name: string; claims: Record<string, unknown>; versions: { version: string }[] }[];
}
interface SourceBody {
  type: string;
  sourceType: string;
  syncStatus: { phase: string; message: string; serverCount: number };
}

const CRD = 'toolyard.dev/v1alpha1/mcpservers';

describe('kubernetes source', () => {
  let kube: FakeKubernetes;
  let kubeconfig: string;
  let registry: TestRegistry | undefined;

  beforeEach(async () => {
    kube = await startFakeKubernetes();
    kubeconfig = await kube.writeKubeconfig();
  });

  afterEach(async () => {
    await registry?.dispose();
    registry = undefined;
    await kube.close();
  });

  async function start(kubernetes: Record<string, unknown> = {}): Promise<TestRegistry> {
    registry = await createTestRegistry({
      config: {
        sources: [{ name: 'cluster', kubernetes: { kubeconfig, ...kubernetes } }],
        registries: [{ name: 'default', sources: ['cluster'] }],
        sync: { leaseDuration: '3s', pollInterval: '100ms' },
      },
    });
    registry.kubernetes.start();
    return registry;
  }

  async function servers(app: TestRegistry): Promise<ServerList['servers']> {
    const response = await app.get<ServerList>('/registry/default/v0.1/servers');
    expect(response.status).toBe(200);
    return response.body.servers;
  }

  const names = async (app: TestRegistry) => (await servers(app)).map((record) => record.server.name).sort();

  async function waitForNames(app: TestRegistry, expected: string[]): Promise<void> {
    let last: string[] = [];
    await waitFor(async () => {
      last = await names(app);
      return JSON.stringify(last) === JSON.stringify([...expected].sort());
    }, `servers ${expected.join(', ')} (have ${last.join(', ')})`);
  }

  it('exports annotated Services with defaults and overrides, ignores the others, and counts invalid names', async () => {
    kube.apply('services', service('tools', 'weather', exported('io.example/weather'), 8081));
    kube.apply(
      'services',
      service(
        'tools',
        'search',
        exported('io.example/search', {
          'toolyard.dev/registry-title': 'Search',
          'toolyard.dev/registry-description': 'Searches things',
          'toolyard.dev/registry-version': '2.3.0',
          'toolyard.dev/registry-transport': 'sse',
          'toolyard.dev/registry-url': 'https://search.example.org/sse',
        }),
      ),
    );
    kube.apply('services', service('tools', 'plain', undefined));
    kube.apply('services', service('tools', 'opted-out', { 'toolyard.dev/registry-export': 'false', 'toolyard.dev/registry-name': 'io.example/opted-out' }));
    kube.apply('services', service('tools', 'nameless', { 'toolyard.dev/registry-export': 'true' }));
    kube.apply('services', service('tools', 'badname', exported('not a name')));
    const app = await start();
    await waitForNames(app, ['io.example/search', 'io.example/weather']);
    const records = await servers(app);
    const weather = records.find((record) => record.server.name === 'io.example/weather')?.server;
    expect(weather).toEqual({
      name: 'io.example/weather',
      description: '',
      version: '1.0.0',
      remotes: [{ type: 'streamable-http', url: 'http://weather.tools.svc.cluster.local:8081/mcp' }],
    });
    const search = records.find((record) => record.server.name === 'io.example/search')?.server;
    expect(search).toMatchObject({ title: 'Search', description: 'Searches things', version: '2.3.0', remotes: [{ type: 'sse', url: 'https://search.example.org/sse' }] });

    const source = await app.get<SourceBody>('/v1/sources/cluster');
    expect(source.body.type).toBe('KUBERNETES');
    expect(source.body.sourceType).toBe('kubernetes');
    expect(source.body.syncStatus).toMatchObject({ phase: 'complete', serverCount: 2 });
    expect(source.body.syncStatus.message).toMatch(/^skipped 2 object\(s\)/);
    expect(source.body.syncStatus.message).toContain('Service tools/nameless: toolyard.dev/registry-name is missing');
    expect(source.body.syncStatus.message).toContain('Service tools/badname');
    const metrics = await app.http.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/toolyard_kubernetes_skipped_objects_total\{source="cluster",reason="invalid"\} 2/);
    expect((await app.send('POST', '/v1/sources/cluster/sync')).status).toBe(400);
  });

  it('gives entries the claims of their annotation, and skips objects whose claims are not JSON', async () => {
    kube.apply('services', service('tools', 'claimed', exported('io.example/claimed', { 'toolyard.dev/authz-claims': '{"team":["platform","data"],"org":"acme"}' })));
    kube.apply('services', service('tools', 'open', exported('io.example/open')));
    kube.apply('services', service('tools', 'broken', exported('io.example/broken', { 'toolyard.dev/authz-claims': '{team: platform' })));
    kube.apply('services', service('tools', 'nested', exported('io.example/nested', { 'toolyard.dev/authz-claims': '{"team":{"a":1}}' })));
    const app = await start();
    await waitForNames(app, ['io.example/claimed', 'io.example/open']);
    const entries = (await app.get<SourceEntries>('/v1/sources/cluster/entries')).body.entries;
    expect(entries.find((entry) => entry.name === 'io.example/claimed')?.claims).toEqual({ team: ['platform', 'data'], org: 'acme' });
    expect(entries.find((entry) => entry.name === 'io.example/open')?.claims).toEqual({});
    const status = (await app.get<SourceBody>('/v1/sources/cluster')).body.syncStatus;
    expect(status.message).toContain('Service tools/broken: toolyard.dev/authz-claims is not valid JSON');
    expect(status.message).not.toContain('{team: platform');
    const metrics = await app.http.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/toolyard_kubernetes_skipped_objects_total\{source="cluster",reason="error"\} 2/);
  });

  it('removes the entry of a deleted or un-annotated object within seconds, and follows changes', async () => {
    kube.apply('services', service('tools', 'one', exported('io.example/one')));
    kube.apply('services', service('tools', 'two', exported('io.example/two')));
    kube.apply('services', service('tools', 'three', exported('io.example/three')));
    const app = await start();
    await waitForNames(app, ['io.example/one', 'io.example/three', 'io.example/two']);
    kube.remove('services', 'tools', 'one');
    await waitForNames(app, ['io.example/three', 'io.example/two']);
    kube.apply('services', service('tools', 'two', undefined));
    await waitForNames(app, ['io.example/three']);
    kube.apply('services', service('tools', 'three', exported('io.example/three', { 'toolyard.dev/registry-version': '1.1.0' })));
    await waitFor(async () => (await servers(app))[0]?.server.version === '1.1.0', 'the new version');
    kube.apply('services', service('tools', 'two', exported('io.example/two')));
    await waitForNames(app, ['io.example/three', 'io.example/two']);
    expect(kube.lists()).toBe(1);
  });

  it('serves the union of its namespaces, and one namespace never removes the entries of another', async () => {
    kube.apply('services', service('team-a', 'alpha', exported('io.example/alpha')));
    kube.apply('services', service('team-b', 'beta', exported('io.example/beta')));
    kube.apply('services', service('team-c', 'gamma', exported('io.example/gamma')));
    const app = await start({ namespaces: ['team-a', 'team-b'] });
    await waitForNames(app, ['io.example/alpha', 'io.example/beta']);
    expect(kube.openWatches()).toBe(2);
    expect(kube.requests.filter((request) => !request.watch).map((request) => request.path).sort()).toEqual([
      '/api/v1/namespaces/team-a/services',
      '/api/v1/namespaces/team-b/services',
    ]);
    kube.remove('services', 'team-b', 'beta');
    kube.apply('services', service('team-b', 'beta2', exported('io.example/beta2')));
    kube.apply('services', service('team-c', 'gamma2', exported('io.example/gamma2')));
    await waitForNames(app, ['io.example/alpha', 'io.example/beta2']);
  });

  it('watches every namespace when none are named', async () => {
    kube.apply('services', service('team-a', 'alpha', exported('io.example/alpha')));
    kube.apply('services', service('team-c', 'gamma', exported('io.example/gamma')));
    const app = await start({ namespaces: [] });
    await waitForNames(app, ['io.example/alpha', 'io.example/gamma']);
    expect(kube.requests.some((request) => request.path === '/api/v1/services' && request.watch)).toBe(true);
  });

  it('exports annotated custom resources of the configured kinds', async () => {
    const resource = (name: string, annotations: Record<string, string> | undefined, spec: Record<string, unknown>): FakeObject => ({
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'MCPServer',
      metadata: { name, namespace: 'tools', ...(annotations && { annotations }) },
      spec,
    });
    kube.apply(CRD, resource('fetch', exported('io.example/fetch', { 'toolyard.dev/registry-url': 'http://fetch.tools:9000/mcp' }), {}));
    kube.apply(CRD, resource('git', exported('io.example/git'), { port: 7000 }));
    kube.apply(CRD, resource('hidden', undefined, { port: 7000 }));
    kube.apply('services', service('tools', 'svc', exported('io.example/svc')));
    const app = await start({ namespaces: ['tools'], resources: [{ group: 'toolyard.dev', version: 'v1alpha1', plural: 'mcpservers' }] });
    await waitForNames(app, ['io.example/fetch', 'io.example/git', 'io.example/svc']);
    const records = await servers(app);
    expect(records.find((record) => record.server.name === 'io.example/fetch')?.server.remotes).toEqual([{ type: 'streamable-http', url: 'http://fetch.tools:9000/mcp' }]);
    expect(records.find((record) => record.server.name === 'io.example/git')?.server.remotes).toEqual([{ type: 'streamable-http', url: 'http://git.tools.svc.cluster.local:7000/mcp' }]);
    expect(kube.requests.some((request) => request.path === '/apis/toolyard.dev/v1alpha1/namespaces/tools/mcpservers' && request.watch)).toBe(true);
    kube.remove(CRD, 'tools', 'fetch');
    await waitForNames(app, ['io.example/git', 'io.example/svc']);
  });

  it.each(['event', 'http'] as const)('lists again after 410 Gone (%s) and catches up with what changed meanwhile', async (mode) => {
    kube.apply('services', service('tools', 'one', exported('io.example/one')));
    const app = await start({ namespaces: ['tools'] });
    await waitForNames(app, ['io.example/one']);
    expect(app.kubernetes.listCount('cluster')).toBe(1);
    // the watch follows bookmarks: a reconnect resumes from the newest version without listing
    kube.apply('services', service('tools', 'plain', undefined));
    kube.bookmark();
    kube.closeWatches();
    await waitFor(() => kube.openWatches() === 1, 'the watch to reconnect');
    const resumed = kube.requests.filter((request) => request.watch).at(-1);
    expect(Number(resumed?.resourceVersion)).toBeGreaterThan(101);
    expect(app.kubernetes.listCount('cluster')).toBe(1);

    kube.expire(mode);
    kube.remove('services', 'tools', 'one');
    kube.apply('services', service('tools', 'two', exported('io.example/two')));
    await waitForNames(app, ['io.example/two']);
    expect(app.kubernetes.listCount('cluster')).toBe(2);
  });

  it('accepts kubernetes sources through the admin API, watches them at once and follows definition changes', async () => {
    kube.apply('services', service('team-a', 'alpha', exported('io.example/alpha')));
    kube.apply('services', service('team-b', 'beta', exported('io.example/beta')));
    const app = await start({ namespaces: ['team-a'] });
    await waitForNames(app, ['io.example/alpha']);
    const definition = { kubernetes: { kubeconfig, namespaces: ['team-b'], resources: [{ group: 'toolyard.dev', version: 'v1alpha1', plural: 'mcpservers' }] } };
    const created = await app.send<SourceBody & { sourceConfig: unknown }>('PUT', '/v1/sources/from-api', definition);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'KUBERNETES', sourceType: 'kubernetes', sourceConfig: definition.kubernetes });
    expect((await app.send('POST', '/v1/sources/from-api/sync')).status).toBe(400);
    expect((await app.send('PUT', '/v1/sources/timed', { ...definition, syncPolicy: { interval: '1m' } })).status).toBe(400);
    expect((await app.send('PUT', '/v1/sources/bad', { kubernetes: { resources: [{ group: 'g' }] } })).status).toBe(400);
    await waitFor(async () => (await app.get<SourceEntries>('/v1/sources/from-api/entries')).body.entries.length === 1, 'the API source to be watched');
    expect(app.kubernetes.owned()).toEqual(['cluster', 'from-api']);
    // a changed definition restarts the watch with it
    expect((await app.send('PUT', '/v1/sources/cluster', { kubernetes: { kubeconfig, namespaces: ['team-b'] } })).status).toBe(403);
    expect((await app.send('PUT', '/v1/sources/from-api', { kubernetes: { kubeconfig, namespaces: ['team-a'] } })).status).toBe(200);
    await waitFor(async () => (await app.get<SourceEntries>('/v1/sources/from-api/entries')).body.entries[0]?.name === 'io.example/alpha', 'the new namespace');
    expect((await app.send('DELETE', '/v1/sources/from-api')).status).toBe(204);
    await waitFor(() => app.kubernetes.owned().length === 1, 'the deleted source to stop being watched');
  });

  it('reports a source whose cluster cannot be read as failed, and keeps retrying', async () => {
    await kube.close();
    const app = await start({ namespaces: ['tools'] });
    await waitFor(async () => (await app.get<SourceBody>('/v1/sources/cluster')).body.syncStatus.phase === 'failed', 'the failure');
    expect((await app.get<SourceBody>('/v1/sources/cluster')).body.syncStatus.message).toMatch(/cannot read services in tools/);
    kube = await startFakeKubernetes();
  });
});
