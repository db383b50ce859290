import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { dayOf, monthOf } from '../../src/platform/budgets/periods.js';
import type { Charge } from '../../src/platform/usage/schemas.js';
import { createRetentionJob } from '../../src/platform/usage/retention.js';
import { manualClock } from '../helpers/clock.js';
import { createTestPlatform, type TestPlatform } from './helpers.js';
import { seedCharges, seedEvents } from './usage-seed.js';

const at = (text: string) => new Date(text);

/** A budget cell and its spend row for the period containing `when`. */
async function seedCell(platform: TestPlatform, period: 'day' | 'month', when: string): Promise<void> {
  const key = period === 'day' ? dayOf(at(when)) : monthOf(at(when));
  const cell = { scope: 'user' as const, subject_id: 'anonymous', period, ordinal: key.ordinal };
  await platform.database.db.insertInto('budget_cells').values({ ...cell, period_start: key.start, period_end: key.end, used_usd: '1', reserved_usd: '0' }).execute();
  await platform.database.db.insertInto('budget_cell_spend').values({ ...cell, model: 'gpt-4o', provider: 'openai', auth_subject: 'anonymous', used_usd: '1' }).execute();
}

// 31 days of retention on 2026-12-01T09:00Z: the horizon is 2026-11-01T00:00Z
describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('retention of charges, usage events and budget periods (%s)', (_name, target) => {
  let platform: TestPlatform;
  const clock = manualClock(new Date('2026-12-01T09:00:00.000Z'));

  beforeAll(async () => {
    platform = await createTestPlatform({ target, clock, config: { usage: { retentionDays: 31 } } });
    await seedCharges(platform.database.db, [
      { at: '2026-10-31T23:59:59.999Z', usd: '1', subject: 'anonymous' },
      { at: '2026-11-01T00:00:00.000Z', usd: '2', subject: 'anonymous' },
    ]);
    await seedEvents(platform.database.db, [
      { at: '2026-10-31T23:59:59.999Z', subject: 'anonymous', id: '22222222-0000-4000-8000-000000000001' },
      { at: '2026-11-01T00:00:00.000Z', subject: 'anonymous', id: '22222222-0000-4000-8000-000000000002' },
    ]);
    // ended before the horizon: October's month and its last day; not yet: November's first day and month, today
    for (const [period, when] of [
      ['day', '2026-10-31T12:00:00Z'],
      ['month', '2026-10-15T00:00:00Z'],
      ['day', '2026-11-01T12:00:00Z'],
      ['month', '2026-11-15T00:00:00Z'],
      ['day', '2026-12-01T00:00:00Z'],
      ['month', '2026-12-01T00:00:00Z'],
    ] as const) {
      await seedCell(platform, period, when);
    }
  });
  afterAll(async () => {
    await platform.dispose();
  });

  const cells = async () =>
    (await platform.database.db.selectFrom('budget_cells').select(['period', 'period_start']).orderBy('period').orderBy('period_start').execute()).map((row) => `${row.period} ${row.period_start.toISOString()}`);

  it('never returns what lies before the horizon, even before the job has deleted it', async () => {
    const charges = await platform.call<{ charges: Charge[] }>('GET', '/v1/charges?from=2026-01-01');
    expect(charges.body.charges.map((charge) => charge.event_time)).toEqual(['2026-11-01T00:00:00.000Z']);
    const events = await platform.call<{ events: { id: string }[] }>('GET', '/v1/me/usage-events');
    expect(events.body.events.map((event) => event.id)).toEqual(['22222222-0000-4000-8000-000000000002']);
    const { count } = await platform.database.db.selectFrom('charges').select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
    expect(Number(count)).toBe(2);
  });

  it('deletes charges and events before the horizon, and the cells and spend of periods ended by then', async () => {
    const job = createRetentionJob({ db: platform.database.db, clock, logger: silentLogger, retentionDays: 31 });
    expect(await job.runOnce()).toEqual({ charges: 1, usageEvents: 1, budgetCells: 2, budgetCellSpend: 2 });
    const db = platform.database.db;
    expect((await db.selectFrom('charges').select('event_time').execute()).map((row) => row.event_time.toISOString())).toEqual(['2026-11-01T00:00:00.000Z']);
    expect((await db.selectFrom('usage_events').select('id').execute()).map((row) => row.id)).toEqual(['22222222-0000-4000-8000-000000000002']);
    expect(await cells()).toEqual(['day 2026-11-01T00:00:00.000Z', 'day 2026-12-01T00:00:00.000Z', 'month 2026-11-01T00:00:00.000Z', 'month 2026-12-01T00:00:00.000Z']);
    expect(await db.selectFrom('budget_cell_spend').select('ordinal').execute()).toHaveLength(4);
    expect(await job.runOnce()).toEqual({ charges: 0, usageEvents: 0, budgetCells: 0, budgetCellSpend: 0 });

    // a day later, November's first day ended before the new horizon
    clock.advance(86_400_000);
    expect(await job.runOnce()).toEqual({ charges: 1, usageEvents: 1, budgetCells: 1, budgetCellSpend: 1 });
    expect(await cells()).toEqual(['day 2026-12-01T00:00:00.000Z', 'month 2026-11-01T00:00:00.000Z', 'month 2026-12-01T00:00:00.000Z']);
  });

  it('runs a pass when the app starts', async () => {
    clock.set(new Date('2027-02-01T00:00:00.000Z'));
    platform.start();
    const deadline = Date.now() + 10_000;
    while ((await cells()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await cells()).toEqual([]);
  });
});

// another replica's pass holds the lock: a second one at the same time deletes nothing (PGlite has one connection)
describe.each(testDatabaseTargets().filter((target) => target.name === 'postgres').map((target) => [target.name, target] as const))('retention across replicas (%s)', (_name, target) => {
  let platform: TestPlatform;
  const clock = manualClock(new Date('2026-12-01T09:00:00.000Z'));

  beforeAll(async () => {
    platform = await createTestPlatform({ target, clock, config: { usage: { retentionDays: 31 } } });
    await seedCharges(platform.database.db, [{ at: '2026-10-01T00:00:00.000Z', usd: '1', subject: 'anonymous' }]);
  });
  afterAll(async () => {
    await platform.dispose();
  });

  it('leaves the work to the replica holding the lock', async () => {
    const job = createRetentionJob({ db: platform.database.db, clock, logger: silentLogger, retentionDays: 31 });
    const trx = await platform.database.db.startTransaction().execute();
    try {
      await sql`select pg_advisory_xact_lock(7411012)`.execute(trx);
      expect(await job.runOnce()).toBeNull();
    } finally {
      await trx.rollback().execute();
    }
    expect(await job.runOnce()).toMatchObject({ charges: 1 });
  });
});
