import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { readThroughCursor } from '../../src/platform/usage/operations/read-through-cursor.js';
import { createTestPlatform, type TestPlatform } from './helpers.js';
import { seedCharges } from './usage-seed.js';

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('reading through an SQL cursor (%s)', (_name, target) => {
  let platform: TestPlatform;
  const query = sql`select charged_usd::text as usd from charges order by charged_usd`;

  beforeAll(async () => {
    platform = await createTestPlatform({ target });
    await seedCharges(platform.database.db, ['1', '2', '3', '4', '5'].map((usd) => ({ at: '2026-11-20T00:00:00.000Z', usd })));
  });
  afterAll(async () => {
    await platform.dispose();
  });

  it('yields every row, a batch at a time, in the query order', async () => {
    const batches: string[][] = [];
    for await (const rows of readThroughCursor<{ usd: string }>(platform.database.db, query, 2)) batches.push(rows.map((row) => row.usd));
    expect(batches).toEqual([['1', '2'], ['3', '4'], ['5']]);
  });

  it('ends its transaction when the reader stops early, so the connection serves the next query', async () => {
    for await (const rows of readThroughCursor<{ usd: string }>(platform.database.db, query, 2)) {
      expect(rows).toHaveLength(2);
      break;
    }
    // on the embedded database a transaction left open would hold its only connection: this would never answer
    const { rows } = await sql<{ open: string }>`select count(*)::text as open from pg_cursors where name = 'read_through'`.execute(platform.database.db);
    expect(rows[0]?.open).toBe('0');
    // on PostgreSQL, no connection of the pool is left inside a transaction
    const idle = await sql<{ count: string }>`select count(*)::text as count from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`.execute(platform.database.db);
    expect(idle.rows[0]?.count).toBe('0');
  });
});
