import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../../src/platform/app.js';
import { TOPICS } from '../../src/platform/context.js';
import type { PricingCatalog } from '../../src/platform/pricing/catalog.js';
import { createTestPlatform, platformConfig } from './helpers.js';

const ENTRY = '/v1/budgets/pricing/entries/openai/gpt-4o';

/** Asks until the replica's catalog no longer prices the model (the change reaches it through the database). */
async function eventuallyUnpriced(catalog: PricingCatalog, provider: string, model: string): Promise<boolean> {
  for (let attempt = 0; attempt < 500 && catalog.lookup(provider, model); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  return catalog.lookup(provider, model) === undefined;
}

// replicas need a database they share: PostgreSQL (PGlite belongs to one process)
describe.each(testDatabaseTargets().filter((target) => target.name === 'postgres').map((target) => [target.name, target] as const))('pricing on three replicas (%s)', (_name, target) => {
  let created: Awaited<ReturnType<typeof target.create>>;
  const replicas: { app: PlatformApp; catalog: PricingCatalog }[] = [];

  beforeAll(async () => {
    created = await target.create();
    for (let index = 0; index < 3; index++) {
      // the poll safety net is slowed to a minute: what the replicas learn, they learn from NOTIFY
      const config = platformConfig({ database: { url: created.url, maxConnections: 3 } });
      const app = await buildPlatformApp({ config, ...(index === 0 && { database: created.database as never }), logger: silentLogger, changePollMs: 60_000 });
      app.start();
      replicas.push({ app, catalog: app.features.pricing.catalog });
    }
  });
  afterAll(async () => {
    for (const { app } of replicas) await app.close();
    await created.drop();
  });

  it('publishes the baseline once, however many replicas start', async () => {
    const response = await replicas[0]?.app.http.inject({ method: 'GET', url: '/v1/budgets/pricing/versions' });
    expect((JSON.parse(response?.body ?? '{}') as { versions: unknown[] }).versions).toHaveLength(1);
    for (const { catalog } of replicas) expect(catalog.lookup('openai', 'gpt-4o')).toBeDefined();
  });

  it('makes a model deleted on one replica unpriceable on the others', async () => {
    const [first, second, third] = replicas;
    if (!first || !second || !third) throw new Error('three replicas expected');
    const response = await second.app.http.inject({ method: 'DELETE', url: ENTRY, headers: { 'if-match': '*' } });
    expect(response.statusCode, response.body).toBe(204);
    expect(second.catalog.lookup('openai', 'gpt-4o')).toBeUndefined();
    expect(await eventuallyUnpriced(first.catalog, 'openai', 'gpt-4o')).toBe(true);
    expect(await eventuallyUnpriced(third.catalog, 'openai', 'gpt-4o')).toBe(true);
    const read = await third.app.http.inject({ method: 'GET', url: ENTRY });
    expect(read.statusCode).toBe(404);
  });
});

describe('pricing written by another replica (embedded database)', () => {
  it('is read through the change feed poll, the safety net behind notifications', async () => {
    let catalog: PricingCatalog | undefined;
    const platform = await createTestPlatform({ changePollMs: 20, extraRoutes: (_context, features) => (catalog = features.pricing.catalog) });
    try {
      platform.start();
      if (!catalog) throw new Error('no catalog');
      expect(catalog.lookup('openai', 'gpt-4o')).toBeDefined();
      const current = catalog.inEffect();
      if (!current) throw new Error('no catalog in effect');
      // what another replica's delete writes: a new version without the entry, and the topic's generation
      await platform.database.db.transaction().execute(async (trx) => {
        const spec = { ...current.row.spec, entries: current.row.spec.entries.filter((entry) => !(entry.provider === 'openai' && entry.model === 'gpt-4o')) };
        await trx
          .insertInto('pricing_versions')
          .values({ id: crypto.randomUUID(), effective_from: new Date(), provider_aliases: JSON.stringify(current.row.provider_aliases), spec: JSON.stringify(spec), source: 'operator', created_at: new Date() })
          .execute();
        await platform.changes.publish(trx as never, TOPICS.pricing);
      });
      expect(await eventuallyUnpriced(catalog, 'openai', 'gpt-4o')).toBe(true);
    } finally {
      await platform.dispose();
    }
  });
});
