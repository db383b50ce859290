import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/core/db/database-testing.js';
import type { BudgetHold, BudgetLedger } from '../../src/platform/budgets/ledger.js';
import type { MemoryBudgetLedger } from '../../src/platform/budgets/memory-ledger.js';
import { dayOf, monthOf } from '../../src/platform/budgets/periods.js';
import type { PlatformDatabase } from '../../src/platform/db.js';
import { Money } from '../../src/platform/money.js';
import { admission, cell, migrated, setLimits, testMemoryLedger, usageEvent } from './budgets-testing.js';

/*
 * The in-memory ledger (the embedded database's single replica) against the same rules as the database
 * ledger (ledger.test.ts): its reservations are only in memory, its settlements in the database.
 */

const AT = new Date('2026-11-25T16:42:39.123Z');
const G1 = '10000000-0000-4000-8000-000000000001';
const G2 = '20000000-0000-4000-8000-000000000002';
const DAY = dayOf(AT);
const MONTH = monthOf(AT);

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

const held = (ledger: MemoryBudgetLedger, scope: 'user' | 'group', subject: string, period: 'day' | 'month') =>
  ledger.reservedOn({ scope, subject_id: subject, period, ordinal: (period === 'day' ? DAY : MONTH).ordinal }).toFixed();

describe.each(testDatabaseTargets().map((target) => [target.name, target] as const))('in-memory budget ledger (%s)', (_name, target) => {
  let created: Awaited<ReturnType<typeof target.create<PlatformDatabase>>>;
  let db: Kysely<PlatformDatabase>;

  beforeEach(async () => {
    created = await target.create<PlatformDatabase>();
    db = await migrated(created.database);
  });
  afterEach(async () => {
    await created.drop();
  });

  it('reserves on every applicable cell in memory and refuses, naming the first cell without room', async () => {
    await setLimits(db, 'user', 'alice', '1.00', '10.00');
    const { ledger } = testMemoryLedger(db);
    expect((await ledger.admit(admission('alice', AT, '0.60'))).admitted).toBe(true);
    expect([held(ledger, 'user', 'alice', 'day'), held(ledger, 'user', 'alice', 'month')]).toEqual(['0.6', '0.6']);
    expect(ledger.heldUserCells().map((key) => key.period).sort()).toEqual(['day', 'month']);
    expect(await ledger.admit(admission('alice', AT, '0.50'))).toEqual({
      admitted: false,
      code: 'budget_exhausted',
      message: 'scope user, subject "alice", period day starting 2026-11-25T00:00:00.000Z: 0.40 USD remaining, this request needs up to 0.50 USD',
    });
    // all or none: the month cell had room but took nothing either
    expect(held(ledger, 'user', 'alice', 'month')).toBe('0.6');
    // nothing of a reservation reaches the database
    expect(await db.selectFrom('budget_reservations').select('event_id').execute()).toEqual([]);
    expect(await cell(db, 'user', 'alice', 'day')).toBeUndefined();
  });

  it('names the user month before the groups, and groups by subject id, day before month', async () => {
    await setLimits(db, 'user', 'alice', null, '0.10');
    await setLimits(db, 'group', G2, '0.10', null);
    await setLimits(db, 'group', G1, null, '0.10');
    const { ledger } = testMemoryLedger(db);
    expect(messageOf(await ledger.admit(admission('alice', AT, '0.20', [G2, G1])))).toMatch(/^scope user, subject "alice", period month starting 2026-11-01T00:00:00.000Z: 0.10 USD remaining/);
    await setLimits(db, 'user', 'alice', null, null);
    await ledger.reloadLimits();
    expect(messageOf(await ledger.admit(admission('alice', AT, '0.20', [G2, G1])))).toMatch(new RegExp(`^scope group, subject "${G1}", period month starting 2026-11-01T00:00:00.000Z`));
  });

  it('holds a user without own limits to the default, and an own limit wins per period', async () => {
    await setLimits(db, 'default', '', '1.00', '2.00');
    await setLimits(db, 'user', 'bob', null, '50.00');
    const { ledger } = testMemoryLedger(db);
    expect((await ledger.admit(admission('alice', AT, '1.50'))).admitted).toBe(false);
    expect(messageOf(await ledger.admit(admission('bob', AT, '1.50')))).toMatch(/^scope user, subject "bob", period day/);
    expect((await ledger.admit(admission('bob', AT, '0.90'))).admitted).toBe(true);
    expect(held(ledger, 'user', 'bob', 'month')).toBe('0.9');
  });

  it('applies a limit change once the limits are reloaded (a budget write reloads them before it answers)', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const { ledger } = testMemoryLedger(db);
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    await setLimits(db, 'user', 'alice', '2.00', null);
    await ledger.reloadLimits();
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    await setLimits(db, 'user', 'alice', '1.00', null);
    await ledger.reloadLimits();
    expect((await ledger.admit(admission('alice', AT, '0.01'))).admitted).toBe(false);
  });

  it('settles once: releases the reservation, adds the exact cost and writes the charges, the spend and the event', async () => {
    await setLimits(db, 'user', 'alice', '1.00', '10.00');
    await setLimits(db, 'group', G1, null, '5.00');
    const { ledger } = testMemoryLedger(db);
    const request = admission('alice', AT, '0.60', [G1, G2]);
    const hold = holdOf(await ledger.admit(request));
    expect(hold).toMatchObject({ reserved: true, budgetedGroupIds: [G1] });
    const settle = settlement(hold, request.eventId, 'alice', '0.25', { interaction_id: 'chat-7' });
    await Promise.all([ledger.settle(settle), ledger.settle(settle)]);
    await ledger.settle(settle);
    expect(await cell(db, 'user', 'alice', 'day')).toEqual({ used: '0.25', reserved: '0' });
    expect(await cell(db, 'group', G1, 'month')).toEqual({ used: '0.25', reserved: '0' });
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '0.25', reserved: '0' });
    expect(await cell(db, 'group', G2, 'day')).toBeUndefined();
    expect(held(ledger, 'user', 'alice', 'day')).toBe('0');
    expect(ledger.heldUserCells()).toEqual([]);
    const charges = await db.selectFrom('charges').select(['scope', 'subject_id', 'charged_usd', 'interaction_id']).orderBy('scope', 'desc').execute();
    expect(charges.map((charge) => ({ ...charge, charged_usd: new Money(charge.charged_usd).toFixed() }))).toEqual([
      { scope: 'user', subject_id: 'alice', charged_usd: '0.25', interaction_id: 'chat-7' },
      { scope: 'group', subject_id: G1, charged_usd: '0.25', interaction_id: 'chat-7' },
    ]);
    expect(await db.selectFrom('budget_cell_spend').select('used_usd').where('auth_subject', '=', 'alice').execute()).toHaveLength(4);
    expect(await db.selectFrom('usage_events').select('id').execute()).toEqual([{ id: request.eventId }]);
    // memory counted the cost once too: 0.25 used leaves room for 0.75, not 0.50
    expect((await ledger.admit(admission('alice', AT, '0.75'))).admitted).toBe(true);
    expect((await ledger.admit(admission('alice', AT, '0.01'))).admitted).toBe(false);
  });

  it('counts a settlement still being written when a cell is first read, once', async () => {
    const { ledger } = testMemoryLedger(db);
    const paid = admission('carol', AT, '5');
    const hold = holdOf(await ledger.admit(paid));
    expect(hold.reserved).toBe(false);
    const settling = ledger.settle(settlement(hold, paid.eventId, 'carol', '0.90'));
    await setLimits(db, 'user', 'carol', '1.00', null);
    await ledger.reloadLimits();
    expect(messageOf(await ledger.admit(admission('carol', AT, '0.20')))).toMatch(/0.10 USD remaining/);
    await settling;
    expect((await ledger.admit(admission('carol', AT, '0.10'))).admitted).toBe(true);
    // a restarted process reads what was committed
    const restarted = testMemoryLedger(db).ledger;
    expect(messageOf(await restarted.admit(admission('carol', AT, '0.20')))).toMatch(/0.10 USD remaining/);
  });

  it('writes no charge for a zero cost, and only the event for a refused request', async () => {
    const { ledger } = testMemoryLedger(db);
    const free = admission('carol', AT, '5');
    await ledger.settle(settlement(holdOf(await ledger.admit(free)), free.eventId, 'carol', '0'));
    await ledger.settle(settlement(null, randomUUID(), 'carol', null, { outcome: 'blocked_downstream', upstream_status: 0 }));
    expect(await db.selectFrom('charges').select('event_id').execute()).toEqual([]);
    expect(await db.selectFrom('usage_events').select('id').execute()).toHaveLength(2);
  });

  it('rolls into a new day cell at midnight while the month cell keeps counting', async () => {
    await setLimits(db, 'user', 'alice', '1.00', '1.50');
    const { ledger } = testMemoryLedger(db);
    const evening = new Date('2026-11-25T23:59:59.999Z');
    const request = admission('alice', evening, '0.90');
    await ledger.settle(settlement(holdOf(await ledger.admit(request)), request.eventId, 'alice', '0.90'));
    expect((await ledger.admit(admission('alice', evening, '0.20'))).admitted).toBe(false);
    const morning = new Date('2026-11-26T00:00:00.000Z');
    expect((await ledger.admit(admission('alice', morning, '0.20'))).admitted).toBe(true);
    expect(messageOf(await ledger.admit(admission('alice', morning, '0.50')))).toMatch(/^scope user, subject "alice", period month starting 2026-11-01T00:00:00.000Z: 0.40 USD remaining/);
  });

  it('admits under soft enforcement, reserving and counting the overrun', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const { ledger, metrics } = testMemoryLedger(db, { enforcement: 'soft' });
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    expect((await ledger.admit(admission('alice', AT, '0.80'))).admitted).toBe(true);
    expect(held(ledger, 'user', 'alice', 'day')).toBe('1.6');
    expect((await metrics.getSingleMetricAsString('toolyard_llm_budget_overruns_total')).trim().split('\n').at(-1)).toBe('toolyard_llm_budget_overruns_total 1');
  });

  it('reserves nothing when enforcement is off but still names the budgeted groups', async () => {
    await setLimits(db, 'user', 'alice', '0.01', null);
    await setLimits(db, 'group', G1, '0.01', null);
    const { ledger } = testMemoryLedger(db, { enforcement: 'off', requireBudget: true });
    const request = admission('alice', AT, '5', [G1, G2]);
    const hold = holdOf(await ledger.admit(request));
    expect(hold).toMatchObject({ reserved: false, budgetedGroupIds: [G1] });
    await ledger.settle(settlement(hold, request.eventId, 'alice', '2'));
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '2', reserved: '0' });
    expect(await db.selectFrom('charges').select('scope').orderBy('scope').execute()).toEqual([{ scope: 'group' }, { scope: 'user' }]);
  });

  it('refuses a caller without any budget when one is required, after the budget check', async () => {
    const { ledger } = testMemoryLedger(db, { requireBudget: true });
    expect(await ledger.admit(admission('dave', AT, '0.10'))).toMatchObject({ admitted: false, code: 'no_budget', message: expect.stringContaining('"dave"') as unknown });
    await setLimits(db, 'group', G1, '1.00', null);
    await ledger.reloadLimits();
    expect((await ledger.admit(admission('dave', AT, '0.10', [G1]))).admitted).toBe(true);
    expect(await ledger.admit(admission('dave', AT, '2.00', [G1]))).toMatchObject({ code: 'budget_exhausted' });
    const soft = testMemoryLedger(db, { enforcement: 'soft', requireBudget: true }).ledger;
    expect((await soft.admit(admission('dave', AT, '0.10'))).admitted).toBe(true);
  });

  it('releases a hold its request never settled past its expiry, once, writing an upstream_error event without a charge', async () => {
    await setLimits(db, 'user', 'alice', '1.00', null);
    const now = { value: AT };
    const { ledger } = testMemoryLedger(db, { clock: { now: () => now.value }, upstreamTimeoutMs: 10_000 });
    const request = admission('alice', AT, '0.60');
    const hold = holdOf(await ledger.admit(request));
    now.value = new Date(AT.getTime() + 69_000);
    expect(await ledger.reclaimExpired()).toBe(0);
    now.value = new Date(AT.getTime() + 70_001);
    expect(await ledger.reclaimExpired()).toBe(1);
    expect(await ledger.reclaimExpired()).toBe(0);
    expect(held(ledger, 'user', 'alice', 'day')).toBe('0');
    expect(await db.selectFrom('usage_events').select(['id', 'outcome', 'upstream_status']).execute()).toEqual([{ id: request.eventId, outcome: 'upstream_error', upstream_status: 0 }]);
    // the request's own settlement, arriving late, finds its event written and counts nothing
    await ledger.settle(settlement(hold, request.eventId, 'alice', '0.50'));
    expect(await db.selectFrom('charges').select('id').execute()).toEqual([]);
    expect((await ledger.admit(admission('alice', AT, '1.00'))).admitted).toBe(true);
  });

  it('decides concurrent admissions in arrival order, never past the limit', async () => {
    await setLimits(db, 'group', G1, '5.00', null);
    const { ledger } = testMemoryLedger(db);
    const requests = Array.from({ length: 400 }, (_, index) => admission(`user-${index}`, AT, '0.10', [G1]));
    const decisions = await Promise.all(requests.map((request) => ledger.admit(request)));
    expect(decisions.filter((decision) => decision.admitted)).toHaveLength(50);
    expect(decisions.slice(0, 50).every((decision) => decision.admitted)).toBe(true);
    await Promise.all(
      decisions.flatMap((decision, index) => (decision.admitted ? [ledger.settle(settlement(decision.hold, requests[index]?.eventId ?? '', decision.hold.caller.subject, '0.10'))] : [])),
    );
    expect(await cell(db, 'group', G1, 'day')).toEqual({ used: '5', reserved: '0' });
    expect(held(ledger, 'group', G1, 'day')).toBe('0');
    expect((await ledger.admit(admission('late', AT, '0.01', [G1]))).admitted).toBe(false);
  });
});
