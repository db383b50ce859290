import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/core/db/database.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRegistryApp, type RegistryApp } from '../../src/registry/app.js';
import type { RegistryDatabase } from '../../src/registry/tables.js';
import { exported, service, startFakeKubernetes, waitFor, type FakeKubernetes } from '../helpers/fake-kubernetes.js';
import { registryConfig } from '../helpers/registry.js';

interface ServerList {
  servers: { server: { name: string } }[];
}

describe('kubernetes source on several replicas', () => {
  let kube: FakeKubernetes;
  let database: Database<RegistryDatabase>;
  const apps: RegistryApp[] = [];

  beforeEach(async () => {
    kube = await startFakeKubernetes();
    database = await createDatabase<RegistryDatabase>({ dataDir: 'memory://' });
  });

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await database.close();
    await kube.close();
  });

  async function replica(kubeconfig: string): Promise<RegistryApp> {
    const app = await buildRegistryApp({
      config: registryConfig({
        database: { dataDir: 'memory://' },
        sources: [{ name: 'cluster', kubernetes: { kubeconfig, namespaces: ['tools'] } }],
        registries: [{ name: 'default', sources: ['cluster'] }],
        sync: { leaseDuration: '2s', pollInterval: '100ms' },
      }),
      database,
      logger: silentLogger,
      backgroundSync: false,
    });
    apps.push(app);
    return app;
  }

  async function names(app: RegistryApp): Promise<string[]> {
    const response = await app.http.inject({ method: 'GET', url: '/registry/default/v0.1/servers' });
    return (JSON.parse(response.body) as ServerList).servers.map((record) => record.server.name).sort();
  }

  it('runs the watch on one replica only, and another takes over when the holder stops or dies', async () => {
    kube.apply('services', service('tools', 'one', exported('io.example/one')));
    const kubeconfig = await kube.writeKubeconfig();
    const first = await replica(kubeconfig);
    const second = await replica(kubeconfig);
    for (const app of [first, second]) {
      app.start();
      app.kubernetes.start();
    }
    await waitFor(() => first.kubernetes.owned().length + second.kubernetes.owned().length === 1, 'one replica to hold the watch');
    await waitFor(async () => (await names(first)).includes('io.example/one') && (await names(second)).includes('io.example/one'), 'both replicas to serve the entry');
    // several lease rounds later still one holder and one watch connection
    await new Promise((resolve) => setTimeout(resolve, 700));
    await Promise.all([first.kubernetes.tick(), second.kubernetes.tick()]);
    const [holder, standby] = first.kubernetes.owned().length === 1 ? [first, second] : [second, first];
    expect(holder.kubernetes.owned()).toEqual(['cluster']);
    expect(standby.kubernetes.owned()).toEqual([]);
    expect(kube.openWatches()).toBe(1);
    expect(kube.lists()).toBe(1);

    // a clean stop hands the lease back at once
    await holder.kubernetes.stop();
    await standby.kubernetes.tick();
    expect(standby.kubernetes.owned()).toEqual(['cluster']);
    kube.apply('services', service('tools', 'two', exported('io.example/two')));
    await waitFor(async () => (await names(holder)).includes('io.example/two'), 'the new holder to write, and the old replica to see it');

    // a holder that dies keeps its lease until it expires; then the other replica takes over
    await standby.kubernetes.stop();
    await database.db
      .updateTable('source_sync')
      .set({ lease_owner: 'dead-replica', lease_until: new Date(Date.now() + 800) })
      .where('source_name', '=', 'cluster')
      .execute();
    holder.kubernetes.start();
    await holder.kubernetes.tick();
    expect(holder.kubernetes.owned()).toEqual([]);
    await waitFor(() => holder.kubernetes.owned().length === 1, 'the expired lease to be taken over', 5_000);
    kube.remove('services', 'tools', 'one');
    await waitFor(async () => JSON.stringify(await names(standby)) === '["io.example/two"]', 'the takeover holder to follow deletes');
  });
});
