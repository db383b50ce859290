import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { Database } from '../../src/core/db/database.js';
import type { BudgetLedger } from '../../src/platform/budgets/ledger.js';
import type { PlatformDatabase } from '../../src/platform/db.js';
import { Money } from '../../src/platform/money.js';
import { admission, cell, migrated, openReplica, setLimits, testLedger, usageEvent } from './budgets-testing.js';

const AT = new Date('2026-11-25T16:42:39.123Z');
const GROUP = '10000000-0000-4000-8000-000000000001';

// replicas need a database they share: PostgreSQL (PGlite belongs to one process)
describe.each(testDatabaseTargets().filter((target) => target.name === 'postgres').map((target) => [target.name, target] as const))('budget ledger on three replicas (%s)', (_name, target) => {
  let created: Awaited<ReturnType<typeof target.create<PlatformDatabase>>>;
  const pools: Database<PlatformDatabase>[] = [];
  const ledgers: BudgetLedger[] = [];

  beforeAll(async () => {
    created = await target.create<PlatformDatabase>();
    await migrated(created.database);
    for (let index = 0; index < 3; index++) {
      const database = await openReplica(created.url ?? '');
      pools.push(database);
      ledgers.push(testLedger(database.db).ledger);
    }
  });
  afterAll(async () => {
    for (const database of pools) await database.close();
    await created.drop();
  });

  it('admits exactly as many of 200 concurrent requests as the budget has room for, and settles within it', async () => {
    const db = created.database.db;
    await setLimits(db, 'group', GROUP, '5.00', null);
    const requests = Array.from({ length: 200 }, (_, index) => ({ request: admission(`user-${index % 13}`, AT, '0.10', [GROUP]), ledger: ledgers[index % 3] as BudgetLedger }));
    const decisions = await Promise.all(requests.map(({ request, ledger }) => ledger.admit(request)));
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(50);
    expect(decisions.flatMap((decision) => (decision.admitted ? [] : [decision.code])).every((code) => code === 'budget_exhausted')).toBe(true);
    expect(await cell(db, 'group', GROUP, 'day')).toEqual({ used: '0', reserved: '5' });

    // each settles at most its bound (0.01 … 0.10), on a replica other than the one that admitted it
    await Promise.all(
      decisions.flatMap((decision, index) => {
        if (!decision.admitted) return [];
        const eventId = requests[index]?.request.eventId ?? '';
        const cost = new Money(((index % 10) + 1) / 100);
        const ledger = ledgers[(index + 1) % 3] as BudgetLedger;
        return [ledger.settle({ hold: decision.hold, event: usageEvent(eventId, AT, decision.hold.caller.subject), cost: { usd: cost, pricingCatalogId: '30000000-0000-4000-8000-000000000003' } })];
      }),
    );
    const after = await cell(db, 'group', GROUP, 'day');
    expect(after?.reserved).toBe('0');
    expect(new Money(after?.used ?? '0').lessThanOrEqualTo('5.00')).toBe(true);
    const charged = await db.selectFrom('charges').select((eb) => eb.fn.sum<string>('charged_usd').as('total')).where('scope', '=', 'group').executeTakeFirstOrThrow();
    expect(new Money(charged.total).toFixed()).toBe(after?.used);
    expect(await db.selectFrom('budget_reservations').select('event_id').execute()).toEqual([]);
  });
});
