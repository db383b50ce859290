import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.js';
import { testDatabaseTargets } from '../../core/db/database-testing.js';
import { migrateToLatest } from '../../core/db/migrator.js';
import { silentLogger } from '../../core/telemetry/logger.js';
import type { PlatformDatabase } from '../db.js';
import { platformMigrations, PLATFORM_MIGRATION_TABLE } from '../migrations/index.js';
import { createFoldJob } from './folds.js';
import type { ToolCallUsage } from './recorder.js';
import { createToolUsageRecorder } from './recording.js';

const usage = (gateway: string): ToolCallUsage => ({
  billable: true,
  billable_reason: 'delivered',
  call_id: randomUUID(),
  category: 'allowed',
  connector_id: 'c1',
  connector_name: 'everything',
  decision: 'allowed',
  definition_version: '2026-11-26T10:00:00.000Z',
  environment: 'production',
  gateway_id: gateway,
  groups: [{ id: 'g1', name: 'engineering' }],
  occurred_at: '2026-11-26T10:00:00.000Z',
  outcome: 'ok',
  tool_name: 'echo',
  user_email: 'ada@example.com',
  user_id: 'u1',
});

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('tool-usage fold (%s)', (_name, target) => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
    drop = undefined;
  });

  const setUp = async (): Promise<Kysely<PlatformDatabase>> => {
    const created = await target.create<PlatformDatabase>();
    drop = () => created.drop();
    await migrateToLatest({ db: created.database.db as never, migrations: platformMigrations, table: PLATFORM_MIGRATION_TABLE });
    return created.database.db;
  };

  it('folds a tail longer than one chunk in a single pass, chunk by chunk, and each record once', async () => {
    const db = await setUp();
    const recorder = createToolUsageRecorder({ db, clock: systemClock, ids: { uuid: randomUUID }, signer: undefined, checkpointEvery: 100 });
    for (let index = 0; index < 7; index++) await recorder.record(usage('gw-1'));
    await recorder.record(usage('gw-2'));
    const folds = createFoldJob({ db, logger: silentLogger, maxRecords: 3 });

    expect(await folds.runOnce()).toBe(8);
    expect(await folds.runOnce()).toBe(0);
    const { rows } = await sql<{ chain_id: string; folded_sequence: number | string }>`select chain_id, folded_sequence from tool_usage_folds order by chain_id`.execute(db);
    expect(rows.map((row) => [row.chain_id, Number(row.folded_sequence)])).toEqual([
      ['gw-1', 7],
      ['gw-2', 1],
    ]);
    // every roll-up width counts each record once
    const counts = await sql<{ width: number; calls: number | string }>`select width, sum(count) as calls from tool_usage_counts where chain_id = 'gw-1' group by width`.execute(db);
    expect(counts.rows.length).toBeGreaterThan(0);
    for (const row of counts.rows) expect(Number(row.calls)).toBe(7);
  });

  it('counts each record once when two replicas fold the same chain at the same time', async () => {
    const db = await setUp();
    const recorder = createToolUsageRecorder({ db, clock: systemClock, ids: { uuid: randomUUID }, signer: undefined, checkpointEvery: 100 });
    await Promise.all(Array.from({ length: 40 }, () => recorder.record(usage('gw-1'))));
    const replicas = [createFoldJob({ db, logger: silentLogger, maxRecords: 7 }), createFoldJob({ db, logger: silentLogger, maxRecords: 7 })];

    const folded = await Promise.all(replicas.map((replica) => replica.runOnce()));

    expect(folded.reduce((sum, count) => sum + count, 0)).toBe(40);
    const counts = await sql<{ width: number; calls: number | string }>`select width, sum(count) as calls from tool_usage_counts where chain_id = 'gw-1' group by width`.execute(db);
    expect(counts.rows.length).toBeGreaterThan(0);
    for (const row of counts.rows) expect(Number(row.calls)).toBe(40);
    const groups = await sql<{ calls: number | string }>`select sum(count) as calls from tool_usage_group_counts where chain_id = 'gw-1' and width = 60`.execute(db);
    expect(Number(groups.rows[0]?.calls)).toBe(40);
  });
});
