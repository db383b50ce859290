import { Money, ZERO } from '../money.js';
import { createBatcher, SETTLE_LINGER_MS, withRetries } from './batcher.js';
import { cellId, type CellKey, type CellState } from './cells.js';
import { decideAdmissions, planOf } from './decide.js';
import type { UsageEvent } from '../usage/schemas.js';
import type { BudgetLedger, HeldReservations } from './ledger.js';
import { overrunCounter, RECLAIM_GRACE_MS } from './ledger-service.js';
import { readAllLimits, type LimitsView } from './limits.js';
import type { BudgetLedgerOptions } from './ledger-service.js';
import { settleBatch, settling, type Settling } from './operations/settle.js';
import { periodAt } from './periods.js';
import { cellsTotals } from './read-store.js';

/** The same options as the database ledger: a hold never settled is released upstreamTimeoutMs + 60 s after admission. */
export type MemoryLedgerOptions = BudgetLedgerOptions;

export interface MemoryBudgetLedger extends BudgetLedger, HeldReservations {
  /** Reads the limits again; admissions use them once it resolves (after a budget write, or news of one). */
  reloadLimits(): Promise<void>;
}

/**
 * The budget ledger of the only replica there can be: the embedded database belongs to one process. Limits
 * and the cells' totals are held in memory (each read from the database on first use), so admission is
 * decided exactly, with the same rules as across replicas, without a database round trip; reservations live
 * only here and die with the process (as do their requests); one whose request never settles is released
 * after upstreamTimeout + 60 s, as the database ledger does. Settlement stays durable: the events, charges,
 * cells' used and spend are written in batched transactions, each event once.
 *
 * A cell's `used` in memory is always its committed total plus the settlements applied here but not yet
 * committed (`pending`): a settlement counts at once, and cell reads and settlement batches take turns on
 * one lane, so a cell read from the database never misses nor double-counts one.
 */
export function createMemoryLedger(options: MemoryLedgerOptions): MemoryBudgetLedger {
  const { db, clock, ids, logger, enforcement, requireBudget } = options;
  const overruns = overrunCounter(options.metrics);
  const maxBatch = options.maxBatch ?? 500;
  const rules = { enforcement, requireBudget };
  const cells = new Map<string, CellState>();
  const keys = new Map<string, CellKey>();
  const pending = new Map<string, Money>();
  const holdMs = options.upstreamTimeoutMs + RECLAIM_GRACE_MS;
  const holds = new Map<string, { cells: string[]; amount: Money; expiresAt: number; event: UsageEvent }>();
  const release = (eventId: string) => {
    const held = holds.get(eventId);
    if (!held) return;
    holds.delete(eventId);
    for (const id of held.cells) {
      const state = cells.get(id);
      if (state) state.reserved = state.reserved.minus(held.amount);
    }
  };

  let lane: Promise<unknown> = Promise.resolve();
  const inLane = <R>(work: () => Promise<R>): Promise<R> => {
    const run = lane.then(work);
    lane = run.catch(() => undefined);
    return run;
  };

  let view: LimitsView | undefined;
  let loading: Promise<void> | undefined;
  let started = 0;
  let applied = 0;
  const reloadLimits = (): Promise<void> => {
    const sequence = ++started;
    const load = readAllLimits(db).then((loaded) => {
      // reads run in order on the one connection: a later one saw at least as much
      if (sequence > applied) {
        applied = sequence;
        view = loaded;
      }
    });
    loading = load.finally(() => {
      if (started === sequence) loading = undefined;
    });
    return load;
  };
  const limits = async (): Promise<LimitsView> => {
    while (view === undefined) await (loading ?? reloadLimits());
    return view;
  };

  const add = (totals: 'used' | 'pending', ids: readonly string[], amount: Money) => {
    for (const id of ids) {
      if (totals === 'used') {
        const state = cells.get(id);
        if (state) state.used = state.used.plus(amount);
        continue;
      }
      const left = (pending.get(id) ?? ZERO).plus(amount);
      if (left.isZero()) pending.delete(id);
      else pending.set(id, left);
    }
  };

  const loads = createBatcher<CellKey, undefined>(
    (wanted) =>
      inLane(async () => {
        const missing = [...new Map(wanted.map((key) => [cellId(key), key])).values()].filter((key) => !cells.has(cellId(key)));
        const rows = new Map((await cellsTotals(db, missing)).map((row) => [cellId(row), row]));
        for (const key of missing) {
          const id = cellId(key);
          const row = rows.get(id);
          cells.set(id, { used: new Money(row?.used_usd ?? 0).plus(pending.get(id) ?? ZERO), reserved: new Money(row?.reserved_usd ?? 0) });
          keys.set(id, { scope: key.scope, subject_id: key.subject_id, period: key.period, ordinal: key.ordinal });
        }
        return wanted.map(() => undefined);
      }),
    maxBatch,
  );

  /** A settlement with whom it charges and the ids of the cells its cost was added to in memory (worked out once, when it came in). */
  const settlements = createBatcher<Settling & { charged: string[] }, undefined>(
    (items) =>
      inLane(async () => {
        let settled: boolean[] = [];
        try {
          settled = await withRetries(() => settleBatch(db, items, ids, { reservations: 'memory' }));
        } finally {
          items.forEach(({ request, charged }, index) => {
            if (!request.cost) return;
            add('pending', charged, request.cost.usd.negated());
            // a failed batch, or a second settlement of an event: it never counted
            if (settled[index] !== true) add('used', charged, request.cost.usd.negated());
          });
        }
        return items.map(() => undefined);
      }),
    maxBatch, SETTLE_LINGER_MS,
  );

  return {
    reloadLimits,

    reservedOn: (key) => cells.get(cellId(key))?.reserved ?? ZERO,

    heldUserCells: () => [...keys.entries()].filter(([id, key]) => key.scope === 'user' && cells.get(id)?.reserved.isZero() === false).map(([, key]) => key),

    async admit(request) {
      for (;;) {
        const current = view ?? (await limits());
        const plan = planOf(current, request);
        const missing = enforcement === 'off' ? [] : plan.cells.filter(({ cell }) => !cells.has(cellId(cell)));
        if (missing.length === 0 && current === view) {
          const decided = decideAdmissions([plan], cells, rules);
          if (decided.overruns > 0) overruns.inc(decided.overruns);
          for (const { cells: reserved } of decided.reservations) holds.set(request.eventId, { cells: reserved.map(cellId), amount: request.maxCost, expiresAt: request.at.getTime() + holdMs, event: request.pendingEvent });
          const [decision] = decided.decisions;
          if (!decision) throw new Error('the ledger decided nothing for an admission');
          return decision;
        }
        await Promise.all(missing.map(({ cell }) => loads.submit(cell)));
      }
    },

    async settle(request) {
      if (request.hold) release(request.event.id);
      const item = settling(request);
      const charged = item.subjects.flatMap((subject) => subject.cells.map(cellId));
      if (request.cost) {
        add('used', charged, request.cost.usd);
        add('pending', charged, request.cost.usd);
      }
      await settlements.submit({ ...item, charged });
    },

    async reclaimExpired() {
      const now = clock.now().getTime();
      // a hold whose request never settled (a fault in this process, not a crash): released, its event written as an upstream_error
      const expired = [...holds.entries()].filter(([, held]) => held.expiresAt < now);
      for (const [eventId] of expired) release(eventId);
      await Promise.all(expired.map(([, held]) => settlements.submit({ ...settling({ hold: null, event: { ...held.event, outcome: 'upstream_error', upstream_status: 0 }, cost: null }), charged: [] })));
      // cells of periods over, holding nothing, are let go
      for (const [id, key] of keys) {
        if (periodAt(key.period, key.ordinal).end.getTime() <= now && cells.get(id)?.reserved.isZero() !== false) {
          cells.delete(id);
          keys.delete(id);
        }
      }
      if (expired.length > 0) logger.warn({ reclaimed: expired.length }, 'released budget reservations past their expiry (their requests never settled)');
      return expired.length;
    },
  };
}
