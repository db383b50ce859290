import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { createMetricsRegistry } from '../../src/core/telemetry/metrics.js';
import type { RegistryDatabase } from '../../src/registry/tables.js';
import { catalogFromBytes, type SourceProvider } from '../../src/registry/sources/providers/provider.js';
import { claimDueSources } from '../../src/registry/sync/operations/claim-due-sources.js';
import { retryDelay } from '../../src/registry/sync/operations/record-sync-outcome.js';
import { createSyncMetrics } from '../../src/registry/sync/metrics.js';
import { createSyncScheduler, type SyncScheduler } from '../../src/registry/sync/scheduler.js';
import { manualClock, type ManualClock } from '../helpers/clock.js';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { catalogFile, createTestRegistry, type TestRegistry } from '../helpers/registry.js';

const server = (name: string, version: string, description = `about ${name}`) => ({ name, version, description, _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { tags: [name.split('/')[1]] } } });
const catalog = (...servers: object[]) => ({ version: '1.0.0', meta: {}, data: { servers } });

interface SourceStatus {
  syncStatus: { phase: string; attemptCount: number; message: string; serverCount: number; lastSyncTime?: string };
}

async function generation(db: Kysely<RegistryDatabase>): Promise<number> {
  return (await db.selectFrom('catalog_state').select('generation').executeTakeFirstOrThrow()).generation;
}

async function storedEntries(db: Kysely<RegistryDatabase>) {
  return db.selectFrom('entries').select(['name', 'version', 'description', 'created_at', 'updated_at']).orderBy('name').orderBy('version').execute();
}

describe.each(testDatabaseTargets())('source sync on $name', (target) => {
  let registry: TestRegistry;
  let clock: ManualClock;
  let db: Kysely<RegistryDatabase>;

  beforeEach(async () => {
    clock = manualClock();
    registry = await createTestRegistry({
      target,
      clock,
      config: {
        sources: [{ name: 'inline', file: { path: await catalogFile(catalog(server('com.acme/a', '1.0.0'), server('com.acme/b', '1.0.0'))) }, syncPolicy: { interval: '1h' } }],
        registries: [{ name: 'default', sources: ['inline'] }],
      },
    });
    db = registry.database.db;
    await registry.syncNow();
  });
  afterEach(() => registry.dispose());

  async function putInline(servers: object[], extra: Record<string, unknown> = {}) {
    // the config source is read-only; an API source with the same data lets the test change it
    const response = await registry.send('PUT', '/v1/sources/api-inline', { file: { data: catalog(...servers) }, syncPolicy: { interval: '1h' }, ...extra });
    expect(response.status).toBeLessThan(300);
    await registry.syncNow();
  }

  it('writes the snapshot and reports counts', async () => {
    const status = await registry.get<SourceStatus>('/v1/sources/inline');
    expect(status.body.syncStatus).toMatchObject({ phase: 'complete', attemptCount: 0, serverCount: 2 });
    expect((await storedEntries(db)).map((row) => row.name)).toEqual(['com.acme/a', 'com.acme/b']);
  });

  it('costs no write when nothing changed', async () => {
    const before = await generation(db);
    const rows = await storedEntries(db);
    clock.advance(3_600_000);
    const results = await registry.scheduler.runDue();
    expect(results.get('inline')).toBe('unchanged');
    expect(await generation(db)).toBe(before);
    expect(await storedEntries(db)).toEqual(rows);
    const status = await registry.get<SourceStatus>('/v1/sources/inline');
    expect(status.body.syncStatus.lastSyncTime).toBe(clock.now().toISOString());
  });

  it('rewrites only what changed and keeps first-seen times', async () => {
    await putInline([server('com.acme/x', '1.0.0'), server('com.acme/y', '1.0.0'), server('com.acme/z', '1.0.0')]);
    const before = await db.selectFrom('entries').selectAll().where('source_name', '=', 'api-inline').orderBy('name').execute();
    clock.advance(60_000);
    await putInline([server('com.acme/x', '1.0.0'), server('com.acme/y', '1.0.0', 'changed'), server('com.acme/w', '1.0.0')]);
    const after = await db.selectFrom('entries').selectAll().where('source_name', '=', 'api-inline').orderBy('name').execute();
    expect(after.map((row) => row.name)).toEqual(['com.acme/w', 'com.acme/x', 'com.acme/y']);
    const x = (rows: typeof before) => rows.find((row) => row.name === 'com.acme/x');
    const y = (rows: typeof before) => rows.find((row) => row.name === 'com.acme/y');
    expect(x(after)?.id).toBe(x(before)?.id);
    expect(y(after)?.description).toBe('changed');
    expect(y(after)?.created_at).toEqual(y(before)?.created_at);
    expect(y(after)?.updated_at.getTime()).toBeGreaterThan(y(before)?.updated_at.getTime() ?? Infinity);
  });

  it('re-applies a changed filter without any upstream change', async () => {
    await putInline([server('com.acme/keep-1', '1.0.0'), server('com.acme/drop-1', '1.0.0'), server('org.other/keep-2', '1.0.0')]);
    await putInline([server('com.acme/keep-1', '1.0.0'), server('com.acme/drop-1', '1.0.0'), server('org.other/keep-2', '1.0.0')], {
      filter: { names: { include: ['com.acme/*'], exclude: ['*/drop-*'] } },
    });
    const source = await registry.get<SourceStatus>('/v1/sources/api-inline');
    expect(source.body.syncStatus.serverCount).toBe(1);
    const names = await db.selectFrom('entries').select('name').where('source_name', '=', 'api-inline').execute();
    expect(names.map((row) => row.name)).toEqual(['com.acme/keep-1']);
  });

  it('re-applies changed claims to every entry of the source', async () => {
    await putInline([server('com.acme/x', '1.0.0')], { claims: { org: 'acme' } });
    await putInline([server('com.acme/x', '1.0.0')], { claims: { org: 'acme', team: ['a', 'b'] } });
    const rows = await db.selectFrom('entries').select('claims').where('source_name', '=', 'api-inline').execute();
    expect(rows.map((row) => row.claims)).toEqual([{ org: 'acme', team: ['a', 'b'] }]);
  });

  it('keeps serving the last good content when a sync fails, with backoff', async () => {
    await putInline([server('com.acme/x', '1.0.0')]);
    // a catalog whose data is valid but whose URL cannot be reached makes every attempt fail
    const put = await registry.send('PUT', '/v1/sources/api-inline', { file: { url: 'http://127.0.0.1:9/catalog.json', timeout: '1s' }, syncPolicy: { interval: '1h' } });
    expect(put.status).toBe(200);
    await registry.syncNow();
    const failed = await registry.get<SourceStatus>('/v1/sources/api-inline');
    expect(failed.body.syncStatus).toMatchObject({ phase: 'failed', attemptCount: 1, serverCount: 1 });
    expect(failed.body.syncStatus.message).toContain('127.0.0.1:9');
    const row = await db.selectFrom('source_sync').select('next_sync_at').where('source_name', '=', 'api-inline').executeTakeFirstOrThrow();
    const delay = (row.next_sync_at?.getTime() ?? 0) - clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(2_500);
    expect(delay).toBeLessThanOrEqual(5_000);
    const entries = await db.selectFrom('entries').select('name').where('source_name', '=', 'api-inline').execute();
    expect(entries.map((entry) => entry.name)).toEqual(['com.acme/x']);
  });
});

describe('retry backoff', () => {
  it('doubles from 5 s, is capped at the interval and keeps jitter in the upper half', () => {
    expect(retryDelay(1, 3_600_000, () => 0)).toBe(2_500);
    expect(retryDelay(1, 3_600_000, () => 1)).toBe(5_000);
    expect(retryDelay(3, 3_600_000, () => 1)).toBe(20_000);
    expect(retryDelay(30, 60_000, () => 1)).toBe(60_000);
    expect(retryDelay(30, 60_000, () => 0)).toBe(30_000);
  });
});

describe.each(testDatabaseTargets())('sync claims between replicas on $name', (target) => {
  let registry: TestRegistry;
  let clock: ManualClock;
  let fetches: number;
  let release: () => void;

  const slowProvider: SourceProvider = {
    async fetch() {
      fetches++;
      await new Promise<void>((resolve) => (release = resolve));
      return catalogFromBytes(JSON.stringify(catalog(server('com.acme/late', '2.0.0'))), 'test');
    },
  };

  function replica(owner: string, provider?: SourceProvider): SyncScheduler {
    return createSyncScheduler({
      db: registry.database.db,
      clock,
      logger: silentLogger,
      metrics: createSyncMetrics(createMetricsRegistry({ defaultMetrics: false })),
      owner,
      leaseMs: 30_000,
      pollMs: 60_000,
      concurrency: 4,
      providerFor: () =>
        provider ?? {
          fetch: () => {
            fetches++;
            return Promise.resolve(catalogFromBytes(JSON.stringify(catalog(server('com.acme/a', '1.0.0'))), 'test'));
          },
        },
      onCatalogChanged: () => Promise.resolve(),
    });
  }

  beforeEach(async () => {
    clock = manualClock();
    fetches = 0;
    registry = await createTestRegistry({
      target,
      clock,
      config: { sources: [{ name: 'inline', file: { path: await catalogFile(catalog(server('com.acme/a', '1.0.0'))) }, syncPolicy: { interval: '1h' } }] },
    });
  });
  afterEach(() => registry.dispose());

  it('syncs a due source once however many replicas ask at the same moment', async () => {
    const results = await Promise.all([replica('r1').runDue(), replica('r2').runDue(), replica('r3').runDue()]);
    expect(results.reduce((sum, map) => sum + map.size, 0)).toBe(1);
    expect(fetches).toBe(1);
  });

  it('lets another replica take over a sync whose holder stopped renewing its lease', async () => {
    const claimed = await claimDueSources(registry.database.db, 'dead-replica', clock.now(), 30_000, 10);
    expect(claimed.map((claim) => claim.sourceName)).toEqual(['inline']);
    expect((await replica('r2').runDue()).size).toBe(0);
    clock.advance(30_001);
    const results = await replica('r2').runDue();
    expect(results.get('inline')).toBe('changed');
  });

  it('never writes the results of a sync whose lease was taken over meanwhile', async () => {
    const stalled = replica('stalled', slowProvider).runDue();
    await vitestWaitFor(() => fetches === 1);
    clock.advance(30_001);
    const takeover = await replica('r2').runDue();
    expect(takeover.get('inline')).toBe('changed');
    release();
    expect((await stalled).get('inline')).toBe('lost');
    const names = await registry.database.db.selectFrom('entries').select('name').execute();
    expect(names.map((row) => row.name)).toEqual(['com.acme/a']);
  });
});

async function vitestWaitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a slow source', () => {
  it('never delays the others', async () => {
    const slow = await startFakeUpstream([{ server: { name: 'com.slow/one', version: '1.0.0' } }]);
    slow.setDelay(20_000);
    const registry = await createTestRegistry({
      config: {
        sources: [
          { name: 'slow', api: { endpoint: slow.url, timeout: '30s' } },
          { name: 'quick', file: { path: await catalogFile(catalog(server('com.acme/quick', '1.0.0'))) } },
        ],
        registries: [{ name: 'default', sources: ['slow', 'quick'] }],
      },
    });
    try {
      registry.scheduler.start();
      const status = async (name: string) => (await registry.get<SourceStatus>(`/v1/sources/${name}`)).body.syncStatus;
      await vitestWaitFor(() => slow.requests.length > 0);
      // the catalog is read from memory, refreshed just after the sync commits: wait for the listing, not the status
      const listed = async () => (await registry.get<{ servers: { server: { name: string } }[] }>('/registry/default/v0.1/servers')).body.servers.map((record) => record.server.name);
      for (let tries = 0; (await listed()).length === 0; tries++) {
        expect(tries).toBeLessThan(100);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await listed()).toEqual(['com.acme/quick']);
      expect((await status('quick')).phase).toBe('complete');
      expect((await status('slow')).phase).toBe('syncing');

      // shutting down interrupts the slow sync and hands it back, with no failure counted against the source
      await registry.scheduler.stop();
      const row = await registry.database.db.selectFrom('source_sync').selectAll().where('source_name', '=', 'slow').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ lease_owner: null, lease_until: null, attempt_count: 0 });
      expect((row.next_sync_at?.getTime() ?? Infinity) <= Date.now()).toBe(true);
    } finally {
      await slow.close();
      await registry.dispose();
    }
  });
});
