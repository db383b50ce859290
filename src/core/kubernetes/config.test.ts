import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKubeConfig } from './config.js';

const KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{ name: c, cluster: { server: "https://cluster.example:6443" } }]',
  'users: [{ name: u, user: { token: t } }]',
  'contexts: [{ name: x, context: { cluster: c, user: u } }]',
  'current-context: x',
  '',
].join('\n');

describe('kubeconfig', () => {
  it('reads the kubeconfig key first, and refuses to guess outside a cluster', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'toolyard-kubeconfig-')), 'config');
    await writeFile(path, KUBECONFIG);
    expect(loadKubeConfig({ kubeconfig: path }, {}).getCurrentCluster()?.server).toBe('https://cluster.example:6443');
    expect(() => loadKubeConfig({}, {})).toThrow(/not running in a cluster/);
  });
});
