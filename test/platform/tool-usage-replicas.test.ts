import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../../src/platform/app.js';
import type { ExportPage, Summary } from '../../src/platform/tool-usage/schemas.js';
import { verifyExport } from '../../src/platform/tool-usage/verify-export.js';
import { platformConfig } from './helpers.js';
import { signingKeys, usageOf } from './tool-usage-testing.js';

const CLIENTS = 8;
const CALLS_PER_CLIENT = 25;

// two replicas need a database they share: PostgreSQL (PGlite belongs to one process)
describe.each(testDatabaseTargets().filter((target) => target.name === 'postgres').map((target) => [target.name, target] as const))('tool-call records from two replicas (%s)', (_name, target) => {
  let created: Awaited<ReturnType<typeof target.create>>;
  const replicas: PlatformApp[] = [];
  let jwks: { keys: Record<string, unknown>[] };

  beforeAll(async () => {
    created = await target.create();
    const keys = await signingKeys('k1');
    jwks = keys.jwks;
    for (let index = 0; index < 2; index++) {
      const config = platformConfig({ database: { url: created.url, maxConnections: 4 }, signing: keys.config, toolUsage: { checkpointEvery: 25 } });
      replicas.push(await buildPlatformApp({ config, ...(index === 0 && { database: created.database as never }), logger: silentLogger }));
    }
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    await created.drop();
  });

  it('append to one chain from 1 without gap or fork, and the export verifies with every checkpoint', async () => {
    // eight clients per replica, each making its calls one after another, all at once
    await Promise.all(
      replicas.flatMap((app, replica) =>
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let call = 0; call < CALLS_PER_CLIENT; call++) await app.features.toolUsage.record(usageOf({ tool_name: `r${replica}-c${client}-${call}` }));
        }),
      ),
    );
    const total = replicas.length * CLIENTS * CALLS_PER_CLIENT;
    const [first] = replicas;
    if (!first) throw new Error('no replica');
    const pages: ExportPage[] = [];
    let cursor: string | undefined;
    do {
      const response = await first.http.inject({ method: 'GET', url: `/v1/tool-usage/export?gateway_id=default&limit=500${cursor ? `&cursor=${cursor}` : ''}` });
      const page = JSON.parse(response.body) as ExportPage;
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor);
    const records = pages.flatMap((page) => page.records);
    expect(records.map((record) => record.sequence)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect(new Set(records.map((record) => record.usage.tool_name)).size).toBe(total);
    expect(pages.flatMap((page) => page.checkpoints.map((checkpoint) => checkpoint.sequence))).toEqual(Array.from({ length: total / 25 }, (_, index) => (index + 1) * 25));
    expect(await verifyExport(pages, jwks.keys, { allowGaps: false })).toEqual([{ status: 'ok', chain: 'default', first: 1, last: total, signed_through: total }]);
    const summary = JSON.parse((await first.http.inject({ method: 'GET', url: '/v1/tool-usage/summary?gateway_id=default' })).body) as Summary;
    expect(summary).toEqual({ active_user_count: 1, tool_call_count: total });
  });
});
