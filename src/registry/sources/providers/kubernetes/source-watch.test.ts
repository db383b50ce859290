import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectionTargets, watchPath } from './collection.js';
import { loadKubeConfig } from './source-watch.js';

const KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{ name: c, cluster: { server: "https://cluster.example:6443" } }]',
  'users: [{ name: u, user: { token: t } }]',
  'contexts: [{ name: x, context: { cluster: c, user: u } }]',
  'current-context: x',
  '',
].join('\n');

describe('kubernetes source configuration', () => {
  it('reads the kubeconfig key first, and refuses to guess outside a cluster', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'toolyard-kubeconfig-')), 'config');
    await writeFile(path, KUBECONFIG);
    expect(loadKubeConfig({ kubeconfig: path }, {}).getCurrentCluster()?.server).toBe('https://cluster.example:6443');
    expect(() => loadKubeConfig({}, {})).toThrow(/not running in a cluster/);
  });

  it('watches Services and each custom resource in every namespace named, or cluster-wide', () => {
    const resource = { group: 'toolyard.dev', version: 'v1alpha1', plural: 'mcpservers' };
    expect(collectionTargets(['a', 'b', 'a'], [resource]).map(watchPath)).toEqual([
      '/api/v1/namespaces/a/services',
      '/apis/toolyard.dev/v1alpha1/namespaces/a/mcpservers',
      '/api/v1/namespaces/b/services',
      '/apis/toolyard.dev/v1alpha1/namespaces/b/mcpservers',
    ]);
    expect(collectionTargets([], [resource]).map(watchPath)).toEqual(['/api/v1/services', '/apis/toolyard.dev/v1alpha1/mcpservers']);
  });
});
