import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock.js';
import type { Ids } from '../../core/ids.js';
import type { PlatformDatabase } from '../db.js';
import { createBatcher, SETTLE_LINGER_MS, withRetries } from './batcher.js';
import type { AdmissionDecision, AdmissionRequest, BudgetLedger, SettlementRequest } from './ledger.js';
import { admitBatch } from './operations/admit.js';
import { reclaimExpired } from './operations/reclaim.js';
import { settleBatch, settling } from './operations/settle.js';

export interface BudgetLedgerOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  metrics: Registry;
  /** `budgets.enforcement`. */
  enforcement: 'hard' | 'soft' | 'off';
  /** `budgets.requireBudget`: under hard enforcement, a caller no cell applies to is refused. */
  requireBudget: boolean;
  /** `llmGateway.upstreamTimeout` in milliseconds: a reservation is reclaimable this long + 60 s after admission. */
  upstreamTimeoutMs: number;
  /** Most calls one transaction decides (default 500). */
  maxBatch?: number;
}

const OVERRUNS = 'toolyard_llm_budget_overruns_total';
export const RECLAIM_GRACE_MS = 60_000;
const RECLAIM_BATCH = 500;

export function overrunCounter(metrics: Registry): Counter {
  const existing = metrics.getSingleMetric(OVERRUNS);
  if (existing instanceof Counter) return existing;
  return new Counter({ name: OVERRUNS, help: 'LLM requests admitted under soft budget enforcement although a budget cell had no room', registers: [metrics] });
}

/**
 * The budget ledger of one replica. Concurrent admissions (and settlements) coalesce: while one transaction
 * is in flight the calls that arrive queue and are decided together in the next, so the cells' row locks are
 * taken once per batch rather than once per request; replicas stay exact because each batch locks its
 * cells in the database.
 */
export function createBudgetLedger(options: BudgetLedgerOptions): BudgetLedger {
  const { db, clock, ids, logger, enforcement, requireBudget } = options;
  const overruns = overrunCounter(options.metrics);
  const maxBatch = options.maxBatch ?? 500;
  const admitOptions = { enforcement, requireBudget, holdMs: options.upstreamTimeoutMs + RECLAIM_GRACE_MS };

  const admissions = createBatcher<AdmissionRequest, AdmissionDecision>(async (requests) => {
    const result = await withRetries(() => db.transaction().execute((trx) => admitBatch(trx, requests, admitOptions)));
    // counted once the batch has committed: a retried transaction does not count its overruns twice
    if (result.overruns > 0) overruns.inc(result.overruns);
    return result.decisions;
  }, maxBatch);
  const settlements = createBatcher<SettlementRequest, undefined>(async (requests) => {
    await withRetries(() => settleBatch(db, requests.map(settling), ids, { reservations: 'database' }));
    return requests.map(() => undefined);
  }, maxBatch, SETTLE_LINGER_MS);

  return {
    admit: (request) => admissions.submit(request),
    async settle(request) {
      await settlements.submit(request);
    },
    async reclaimExpired() {
      let total = 0;
      for (;;) {
        const count = await withRetries(() => db.transaction().execute((trx) => reclaimExpired(trx, clock.now(), RECLAIM_BATCH)));
        total += count;
        if (count < RECLAIM_BATCH) break;
      }
      if (total > 0) logger.warn({ reclaimed: total }, 'released budget reservations past their expiry (their requests never settled)');
      return total;
    },
  };
}
