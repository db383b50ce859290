import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/core/db/database.js';
import { testDatabaseTargets, type TestDatabaseTarget } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildRegistryApp, type RegistryApp } from '../../src/registry/app.js';
import type { RegistryDatabase } from '../../src/registry/tables.js';
import { freePort, spawnCli, waitFor } from '../helpers/cli.js';
import { manualClock } from '../helpers/clock.js';
import { catalogFile, registryConfig } from '../helpers/registry.js';

const catalog = (...names: string[]) => ({ version: '1', meta: {}, data: { servers: names.map((name) => ({ name, version: '1.0.0', description: name })) } });

async function names(app: RegistryApp, registry = 'default'): Promise<string[]> {
  const response = await app.http.inject({ method: 'GET', url: `/registry/${registry}/v0.1/servers` });
  if (response.statusCode !== 200) return [];
  return (JSON.parse(response.body) as { servers: { server: { name: string } }[] }).servers.map((record) => record.server.name);
}

/** The bound: a write on one replica shows on the others within one second. */
const PROPAGATION_MS = 1_000;

describe.each(testDatabaseTargets())('three replicas on one $name database', (target: TestDatabaseTarget) => {
  const clock = manualClock();
  let created: Awaited<ReturnType<TestDatabaseTarget['create']>>;
  const extraPools: Database<RegistryDatabase>[] = [];
  let replicas: RegistryApp[];

  beforeAll(async () => {
    created = await target.create();
    const config = registryConfig({
      sources: [
        { name: 'internal', managed: {} },
        { name: 'upstream', file: { path: await catalogFile(catalog('com.acme/one', 'com.acme/two')) }, syncPolicy: { interval: '1h' } },
      ],
      registries: [{ name: 'default', sources: ['internal', 'upstream'] }],
      // on PostgreSQL only LISTEN/NOTIFY can beat the bound (the poll is far slower); PGlite has one
      // process, so its replicas rely on the poll
      sync: { pollInterval: created.url === undefined ? '250ms' : '30s' },
    });
    replicas = [];
    for (let index = 0; index < 3; index++) {
      // on a server every replica has its own pool, as separate processes would; PGlite is one connection
      let database = created.database as Database<RegistryDatabase>;
      if (created.url !== undefined && index > 0) {
        database = await createDatabase<RegistryDatabase>({ url: created.url, maxConnections: 3 });
        extraPools.push(database);
      }
      const app = await buildRegistryApp({ config, database, clock, logger: silentLogger, backgroundSync: false });
      app.start();
      replicas.push(app);
    }
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    for (const database of extraPools) await database.close();
    await created.drop();
  });

  it('syncs a due source once per interval, whichever replicas ask', async () => {
    const first = await Promise.all(replicas.map((app) => app.scheduler.runDue()));
    expect(first.flatMap((results) => [...results.values()])).toEqual(['changed']);
    expect(first.flatMap((results) => [...results.values()])).toHaveLength(1);
    const again = await Promise.all(replicas.map((app) => app.scheduler.runDue()));
    expect(again.flatMap((results) => [...results.values()])).toEqual([]);
    clock.advance(3_600_000);
    const next = await Promise.all(replicas.map((app) => app.scheduler.runDue()));
    expect(next.flatMap((results) => [...results.values()])).toEqual(['unchanged']);
  });

  it('shows a write made through one replica on the others within a second', async () => {
    const [a, b, c] = replicas as [RegistryApp, RegistryApp, RegistryApp];
    await waitFor(async () => ((await names(c)).includes('com.acme/two') ? true : undefined), PROPAGATION_MS * 5, 'the first sync everywhere');

    const publish = await a.http.inject({ method: 'POST', url: '/v1/entries', payload: { server: { name: 'com.acme/published', version: '1.0.0' } } });
    expect(publish.statusCode).toBe(201);
    for (const replica of [b, c]) {
      await waitFor(async () => ((await names(replica)).includes('com.acme/published') ? true : undefined), PROPAGATION_MS, 'the publish');
    }

    const registry = await b.http.inject({ method: 'PUT', url: '/v1/registries/narrow', payload: { sources: ['internal'] } });
    expect(registry.statusCode).toBe(201);
    for (const replica of [a, c]) {
      await waitFor(async () => ((await names(replica, 'narrow')).join() === 'com.acme/published' ? true : undefined), PROPAGATION_MS, 'the new registry');
    }

    const reorder = await c.http.inject({ method: 'PUT', url: '/v1/registries/narrow', payload: { sources: ['upstream'] } });
    expect(reorder.statusCode).toBe(200);
    for (const replica of [a, b]) {
      await waitFor(async () => ((await names(replica, 'narrow')).join() === 'com.acme/one,com.acme/two' ? true : undefined), PROPAGATION_MS, 'the changed registry');
    }

    const claims = await a.http.inject({ method: 'PUT', url: '/v1/entries/server/com.acme%2Fpublished/claims', payload: { claims: { org: 'acme' } } });
    expect(claims.statusCode).toBe(204);
    for (const replica of [b, c]) {
      await waitFor(() => Promise.resolve(replica.readModel.generation === a.readModel.generation ? true : undefined), PROPAGATION_MS, 'the claims change');
    }

    const removed = await b.http.inject({ method: 'DELETE', url: '/v1/entries/server/com.acme%2Fpublished/versions/1.0.0' });
    expect(removed.statusCode).toBe(204);
    for (const replica of [a, c]) {
      await waitFor(async () => (!(await names(replica)).includes('com.acme/published') ? true : undefined), PROPAGATION_MS, 'the delete');
    }
  });
});

const postgres = testDatabaseTargets().filter((target) => target.name === 'postgres');

describe.each(postgres)('a rolling restart of three replicas on $name', (target) => {
  let dir: string;
  let created: Awaited<ReturnType<TestDatabaseTarget['create']>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolyard-rolling-'));
    created = await target.create();
  });
  afterAll(async () => {
    await created.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps two replicas ready and fails no consumer request', async () => {
    const config = join(dir, 'registry.yaml');
    await writeFile(
      config,
      [
        `database: { url: "${created.url ?? ''}" }`,
        'sources:',
        `  - { name: upstream, file: { path: ${await catalogFile(catalog('com.acme/one', 'com.acme/two'))} }, syncPolicy: { interval: 1h } }`,
        'registries:',
        '  - { name: default, sources: [upstream] }',
        'auth: { mode: anonymous }',
        'server: { shutdownDelay: 1500ms }',
        'sync: { pollInterval: 250ms }',
        'logging: { level: warn }',
      ].join('\n'),
    );
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const start = (port: number) => spawnCli(['registry', 'serve', '--config', config, '--address', `127.0.0.1:${port}`]);
    const ready = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readiness`).catch(() => undefined))?.status === 200;
    const processes = ports.map(start);
    for (const port of ports) await waitFor(async () => ((await ready(port)) ? true : undefined), 60_000, `replica ${port}`);
    await waitFor(async () => ((await (await fetch(`http://127.0.0.1:${ports[0]}/registry/default/v0.1/servers`)).json()) as { metadata: { count: number } }).metadata.count === 2 || undefined, 30_000, 'the first sync');

    // a load balancer: it probes /readiness every 100 ms and sends consumer requests only to ready replicas
    const healthy = new Set(ports);
    let fewestReady = 3;
    let failures = 0;
    let served = 0;
    const load = { running: true };
    const prober = (async () => {
      while (load.running) {
        const states = await Promise.all(ports.map(async (port) => [port, await ready(port)] as const));
        for (const [port, ok] of states) {
          if (ok) healthy.add(port);
          else healthy.delete(port);
        }
        fewestReady = Math.min(fewestReady, healthy.size);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const client = (async () => {
      for (let turn = 0; load.running; turn++) {
        const targets = [...healthy];
        const port = targets[turn % Math.max(targets.length, 1)];
        if (port === undefined) {
          failures++;
          await new Promise((resolve) => setTimeout(resolve, 10));
          continue;
        }
        const response = await fetch(`http://127.0.0.1:${port}/registry/default/v0.1/servers`).catch(() => undefined);
        if (response?.status === 200) served++;
        else failures++;
        await response?.arrayBuffer().catch(() => undefined);
      }
    })();

    try {
      for (const [index, port] of ports.entries()) {
        const old = processes[index];
        old?.kill('SIGTERM');
        await new Promise((resolve) => old?.once('exit', resolve));
        processes[index] = start(port);
        await waitFor(async () => ((await ready(port)) ? true : undefined), 60_000, `restarted replica ${port}`);
      }
    } finally {
      load.running = false;
      await prober;
      await client;
      for (const child of processes) child.kill('SIGTERM');
      await Promise.all(processes.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)))));
    }
    expect(failures).toBe(0);
    expect(served).toBeGreaterThan(50);
    expect(fewestReady).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
