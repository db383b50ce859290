import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { BudgetHold, BudgetLedger } from '../../src/platform/budgets/ledger.js';
import type { PlatformDatabase } from '../../src/platform/db.js';
import { Money } from '../../src/platform/money.js';
import { settleBatch, settling } from '../../src/platform/budgets/operations/settle.js';
import { admission, cell, migrated, setLimits, testLedger, usageEvent } from './budgets-testing.js';

const AT = new Date('2026-11-25T16:42:39.123Z');
const G1 = '10000000-0000-4000-8000-000000000001';
const G2 = '20000000-0000-4000-8000-000000000002';

const holdOf = (decision: Awaited<ReturnType<BudgetLedger['admit']>>): BudgetHold => {
  if (!decision.admitted) throw new Error(`refused: ${decision.message}`);
  return decision.hold;
};

const messageOf = (decision: Awaited<ReturnType<BudgetLedger['admit']>>): string => (decision.admitted ? 'admitted' : decision.message);

const settlement = (hold: BudgetHold | null, eventId: string, subject: string, cost: string | null, overrides = {}) => ({
  hold,
  event: usageEvent(eventId, hold?.at ?? AT, subject, overrides),
  cost: cost === null ? null : { usd: new Money(cost), pricingCatalogId: '30000000-0000-4000-8000-000000000003' },
});

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('budget ledger (%s)', (_name, target) => {
  let created: Awaited<ReturnType<typeof target.create<PlatformDatabase>>>;
  let db: Kysely<PlatformDatabase>;

  beforeEach(async () => {
    created = await target.create<PlatformDatabase>();
    db = await migrated(created.database);
  });
  afterEach(async () => {
    await created.drop();
  });

  it('reserves on every applicable cell and refuses, naming the first cell without room', async () => {
    await setLimits(db, 'user', 'alice', '1.00', '10.00');
    const { ledger } = testLedger(db);
    const first = await ledger.admit(admission('alice', AT, '0.60'));
    expect(first.admitted).toBe(true);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0', reserved: '0.6' });
    expect(await cell(db, 'user', 'alice', 'month')).toEqual({ used: '0', reserved: '0.6' });
    const second = await ledger.admit(admission('alice', AT, '0.50'));
    expect(second).toEqual({
      admitted: false,
      code: 'budget_exhausted',
      message: 'scope user, subject "alice", period day starting 2026-11-25T00:00:00.000Z: 0.40 USD remaining, this request needs up to 0.50 USD',
    });
    // all or none: the month cell had room but took nothing either
    expect(await cell(db, 'user', 'alice', 'month')).toEqual({ used: '0', reserved: '0.6' });
    expect(await db.selectFrom('budget_reservations').select('event_id').execute()).toHaveLength(1);
  });

  it('names the user month before the groups, and groups by subject id, day before month', async () => {
    await setLimits(db, 'user', 'alice', null, '0.10');
    await setLimits(db, 'group', G2, '0.10', null);
    await setLimits(db, 'group', G1, null, '0.10');
    const { ledger } = testLedger(db);
    const month = await ledger.admit(admission('alice', AT, '0.20', [G2, G1]));
    expect(messageOf(month)).toMatch(/^scope user, subject "alice", period month starting 2026-11-01T00:00:00.000Z: 0.10 USD remaining/);
    await setLimits(db, 'user', 'alice', null, null);
    const group = await ledger.admit(admission('alice', AT, '0.20', [G2, G1]));
    expect(messageOf(group)).toMatch(new RegExp(`^scope group, subject "${G1}", period month starting 2026-11-01T00:00:00.000Z`));
  });

  it('holds a user without own limits to the default, and an own limit wins per period', async () => {
    await setLimits(db, 'default', '', '1.00', '2.00');
    await setLimits(db, 'user', 'bob', null, '50.00');
    const { ledger } = testLedger(db);
    expect((await ledger.admit(admission('alice', AT, '1.50'))).admitted).toBe(false);
    // bob: own month limit, the default's day limit
    const bob = await ledger.admit(admission('bob', AT, '1.50'));
    expect(messageOf(bob)).toMatch(/^scope user, subject "bob", period day/);
    expect((await ledger.admit(admission('bob', AT, '0.90'))).admitted).toBe(true);
    expect(await cell(db, 'user', 'bob', 'month')).toEqual({ used: '0', reserved: '0.9' });
  });

  it('applies a limit change from the next admission', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const { ledger } = testLedger(db);
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    await setLimits(db, 'user', 'alice', '2.00', null);
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    await setLimits(db, 'user', 'alice', '1.00', null);
    expect((await ledger.admit(admission('alice', AT, '0.01'))).admitted).toBe(false);
  });

  it('settles once: releases the reservation, adds the exact cost and writes the charges, the spend and the event', async () => {
    await setLimits(db, 'user', 'alice', '1.00', '10.00');
    await setLimits(db, 'group', G1, null, '5.00');
    const { ledger } = testLedger(db);
    const request = admission('alice', AT, '0.60', [G1, G2]);
    const hold = holdOf(await ledger.admit(request));
    expect(hold).toMatchObject({ reserved: true, budgetedGroupIds: [G1] });
    const settle = settlement(hold, request.eventId, 'alice', '0.000123', { interaction_id: 'chat-7' });
    await ledger.settle(settle);
    await ledger.settle(settle);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0.000123', reserved: '0' });
    expect(await cell(db, 'group', G1, 'month')).toEqual({ used: '0.000123', reserved: '0' });
    // a group with a month budget only: its day cell still counts what was charged while budgeted
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '0.000123', reserved: '0' });
    expect(await cell(db, 'group', G2, 'day')).toBeUndefined();
    const charges = await db.selectFrom('charges').selectAll().orderBy('scope', 'desc').execute();
    expect(charges.map((charge) => ({ ...charge, charged_usd: new Money(charge.charged_usd).toFixed(), id: undefined }))).toEqual(
      (['user', 'group'] as const).map((scope) => ({
        id: undefined,
        event_id: request.eventId,
        event_time: AT,
        scope,
        subject_id: scope === 'user' ? 'alice' : G1,
        auth_subject: 'alice',
        charged_usd: '0.000123',
        model: 'gpt-4o',
        provider: 'openai',
        interaction_id: 'chat-7',
        period_start: new Date('2026-11-25T00:00:00.000Z'),
        period_end: new Date('2026-11-26T00:00:00.000Z'),
        pricing_catalog_id: '30000000-0000-4000-8000-000000000003',
      })),
    );
    const spend = await db.selectFrom('budget_cell_spend').select(['scope', 'period', 'used_usd']).where('auth_subject', '=', 'alice').execute();
    expect(spend).toHaveLength(4);
    expect(await db.selectFrom('usage_events').select('id').execute()).toEqual([{ id: request.eventId }]);
    expect(await db.selectFrom('budget_reservations').select('event_id').execute()).toEqual([]);
  });

  it('settles a batch mixing new events, an event settled before and a twin: only the first of each new event counts', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    await setLimits(db, 'group', G1, '1.00', null);
    const { ledger } = testLedger(db);
    const early = admission('alice', AT, '0.10', [G1]);
    const earlyHold = holdOf(await ledger.admit(early));
    await ledger.settle(settlement(earlyHold, early.eventId, 'alice', '0.01'));
    const fresh = admission('alice', AT, '0.20', [G1]);
    const freshHold = holdOf(await ledger.admit(fresh));
    const ids = { uuid: () => randomUUID() };
    const batch = [
      settlement(earlyHold, early.eventId, 'alice', '0.50'),
      settlement(freshHold, fresh.eventId, 'alice', '0.02'),
      settlement(freshHold, fresh.eventId, 'alice', '0.40'),
      settlement(null, randomUUID(), 'alice', null),
    ];
    expect(await settleBatch(db, batch.map(settling), ids, { reservations: 'database' })).toEqual([false, true, false, true]);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0.03', reserved: '0' });
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '0.03', reserved: '0' });
    const charged = await db.selectFrom('charges').select(['event_id', 'scope', 'charged_usd']).orderBy('charged_usd').orderBy('scope').execute();
    expect(charged.map((charge) => [charge.event_id, charge.scope, new Money(charge.charged_usd).toFixed()])).toEqual([
      [early.eventId, 'group', '0.01'],
      [early.eventId, 'user', '0.01'],
      [fresh.eventId, 'group', '0.02'],
      [fresh.eventId, 'user', '0.02'],
    ]);
    const spend = await db.selectFrom('budget_cell_spend').select(['scope', 'period', 'used_usd']).orderBy('scope').orderBy('period').execute();
    expect(spend.map((row) => [row.scope, row.period, new Money(row.used_usd).toFixed()])).toEqual([
      ['group', 'day', '0.03'],
      ['group', 'month', '0.03'],
      ['user', 'day', '0.03'],
      ['user', 'month', '0.03'],
    ]);
    expect(await db.selectFrom('usage_events').select('id').execute()).toHaveLength(3);
    expect(await db.selectFrom('budget_reservations').select('event_id').execute()).toEqual([]);
  });

  it('counts a user without any budget too, writes no charge for a zero cost, and only the event for a refused request', async () => {
    const { ledger } = testLedger(db);
    const paid = admission('carol', AT, '5');
    const hold = holdOf(await ledger.admit(paid));
    expect(hold.reserved).toBe(false);
    await ledger.settle(settlement(hold, paid.eventId, 'carol', '0.25'));
    expect(await cell(db, 'user', 'carol', 'month')).toEqual({ used: '0.25', reserved: '0' });
    const free = admission('carol', AT, '5');
    await ledger.settle(settlement(holdOf(await ledger.admit(free)), free.eventId, 'carol', '0'));
    const refusedId = randomUUID();
    await ledger.settle(settlement(null, refusedId, 'carol', null, { outcome: 'blocked_downstream', upstream_status: 0 }));
    expect(await db.selectFrom('charges').select('event_id').execute()).toEqual([{ event_id: paid.eventId }]);
    expect(await db.selectFrom('usage_events').select('id').execute()).toHaveLength(3);
  });

  it('rolls into a new day cell at midnight while the month cell keeps counting', async () => {
    await setLimits(db, 'user', 'alice', '1.00', '1.50');
    const { ledger } = testLedger(db);
    const evening = new Date('2026-11-25T23:59:59.999Z');
    const request = admission('alice', evening, '0.90');
    await ledger.settle(settlement(holdOf(await ledger.admit(request)), request.eventId, 'alice', '0.90'));
    expect((await ledger.admit(admission('alice', evening, '0.20'))).admitted).toBe(false);
    const morning = new Date('2026-11-26T00:00:00.000Z');
    expect((await ledger.admit(admission('alice', morning, '0.20'))).admitted).toBe(true);
    const refused = await ledger.admit(admission('alice', morning, '0.50'));
    expect(messageOf(refused)).toMatch(/^scope user, subject "alice", period month starting 2026-11-01T00:00:00.000Z: 0.40 USD remaining/);
    const days = await db.selectFrom('budget_cells').select(['ordinal', 'used_usd', 'reserved_usd']).where('period', '=', 'day').orderBy('ordinal').execute();
    expect(days.map((row) => [row.ordinal, new Money(row.used_usd).toFixed(), new Money(row.reserved_usd).toFixed()])).toEqual([
      [20782, '0.9', '0'],
      [20783, '0', '0.2'],
    ]);
  });

  it('admits under soft enforcement, reserving and counting the overrun', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const { ledger, metrics } = testLedger(db, { enforcement: 'soft' });
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0', reserved: '1.6' });
    expect((await metrics.getSingleMetricAsString('toolyard_llm_budget_overruns_total')).trim().split('\n').at(-1)).toBe('toolyard_llm_budget_overruns_total 1');
  });

  it('reserves nothing when enforcement is off but still names the budgeted groups', async () => {
    await setLimits(db, 'user', 'alice', '0.01', null);
    await setLimits(db, 'group', G1, '0.01', null);
    const { ledger } = testLedger(db, { enforcement: 'off', requireBudget: true });
    const request = admission('alice', AT, '5', [G1, G2]);
    const hold = holdOf(await ledger.admit(request));
    expect(hold).toMatchObject({ reserved: false, budgetedGroupIds: [G1] });
    expect(await db.selectFrom('budget_reservations').select('event_id').execute()).toEqual([]);
    await ledger.settle(settlement(hold, request.eventId, 'alice', '2'));
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '2', reserved: '0' });
    expect(await db.selectFrom('charges').select('scope').orderBy('scope').execute()).toEqual([{ scope: 'group' }, { scope: 'user' }]);
  });

  it('refuses a caller without any budget when one is required, after the budget check', async () => {
    const { ledger } = testLedger(db, { requireBudget: true });
    expect(await ledger.admit(admission('dave', AT, '0.10'))).toMatchObject({ admitted: false, code: 'no_budget', message: expect.stringContaining('"dave"') as unknown });
    await setLimits(db, 'group', G1, '1.00', null);
    expect((await ledger.admit(admission('dave', AT, '0.10', [G1]))).admitted).toBe(true);
    expect(await ledger.admit(admission('dave', AT, '2.00', [G1]))).toMatchObject({ code: 'budget_exhausted' });
    const soft = testLedger(db, { enforcement: 'soft', requireBudget: true }).ledger;
    expect((await soft.admit(admission('dave', AT, '0.10'))).admitted).toBe(true);
  });

  it('reclaims a reservation past its expiry once, as an upstream_error without a charge', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const now = { value: AT };
    const { ledger } = testLedger(db, { clock: { now: () => now.value }, upstreamTimeoutMs: 10_000 });
    const request = admission('alice', AT, '0.60');
    const hold = holdOf(await ledger.admit(request));
    now.value = new Date(AT.getTime() + 69_000);
    expect(await ledger.reclaimExpired()).toBe(0);
    now.value = new Date(AT.getTime() + 70_001);
    expect(await ledger.reclaimExpired()).toBe(1);
    expect(await ledger.reclaimExpired()).toBe(0);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0', reserved: '0' });
    const events = await db.selectFrom('usage_events').select(['id', 'outcome', 'upstream_status']).execute();
    expect(events).toEqual([{ id: request.eventId, outcome: 'upstream_error', upstream_status: 0 }]);
    // the request's own settlement, arriving late, finds its event written and does nothing
    await ledger.settle(settlement(hold, request.eventId, 'alice', '0.50'));
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0', reserved: '0' });
    expect(await db.selectFrom('charges').select('id').execute()).toEqual([]);
  });

  it('applies nothing of a batch whose transaction fails, and refuses every request in it', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const { ledger } = testLedger(db);
    const first = admission('alice', AT, '0.10');
    const twin = admission('alice', AT, '0.20');
    // the first runs alone; the two that arrive meanwhile share the next transaction, which a duplicate event id fails
    const outcomes = await Promise.allSettled([ledger.admit(first), ledger.admit(twin), ledger.admit({ ...twin, maxCost: new Money('0.30') })]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0', reserved: '0.1' });
    expect((await ledger.admit(admission('alice', AT, '0.90'))).admitted).toBe(true);
  });

  it('decides concurrent admissions together, in arrival order, never past the limit', async () => {
    await setLimits(db, 'group', G1, '5.00', null);
    const { ledger } = testLedger(db);
    // hundreds of callers in one batch: hundreds of cells locked and written by one statement each
    const requests = Array.from({ length: 400 }, (_, index) => admission(`user-${index}`, AT, '0.10', [G1]));
    const decisions = await Promise.all(requests.map((request) => ledger.admit(request)));
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(50);
    expect(decisions.slice(0, 50).every((decision) => decision.admitted)).toBe(true);
    await Promise.all(
      decisions.flatMap((decision, index) => (decision.admitted ? [ledger.settle(settlement(decision.hold, requests[index]?.eventId ?? '', decision.hold.caller.subject, '0.10'))] : [])),
    );
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '5', reserved: '0' });
  });
});
