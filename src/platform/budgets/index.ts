import { parseDuration } from '../../core/config/duration.js';
import { TOPICS, type PlatformContext } from '../context.js';
import { authorizeBudgetReads, authorizeBudgets } from './authz.js';
import type { BudgetLedger } from './ledger.js';
import { createBudgetLedger } from './ledger-service.js';
import { createMemoryLedger } from './memory-ledger.js';
import { registerBudgetReadRoutes } from './read-routes.js';
import { BreakdownSchema, BudgetCellSchema, OwnSummarySchema, SliceSchema } from './read-schemas.js';
import { createBudgetReadService } from './read-service.js';
import { registerBudgetsRoutes } from './routes.js';
import { BudgetCollectionSchema } from './schemas.js';
import { createBudgetsService } from './service.js';

/** What the LLM gateway takes from budgets: the ledger it admits and settles requests with. */
export interface BudgetsFeature {
  ledger: BudgetLedger;
}

const RECLAIM_EVERY_MS = 30_000;

/** Budgets: the collection and its routes, the ledger, and the reclaiming of reservations a crashed replica left behind. */
export function registerBudgetsFeature(context: PlatformContext): Promise<BudgetsFeature> {
  const { http, db, clock, ids, logger, metrics, config, audit, changes, access, identity } = context;
  for (const schema of [BudgetCollectionSchema, BudgetCellSchema, BreakdownSchema, SliceSchema, OwnSummarySchema]) http.addSchema(schema);
  const rules = {
    enforcement: config.budgets.enforcement,
    requireBudget: config.budgets.requireBudget,
    // checked at start (checkPlatformConfig)
    upstreamTimeoutMs: parseDuration(config.llmGateway.upstreamTimeout) ?? 600_000,
  };
  // the embedded database belongs to this process: it is the only replica, and admission is decided in memory
  const memory = context.database.kind === 'pglite' ? createMemoryLedger({ db, clock, ids, logger, metrics, ...rules }) : undefined;
  const ledger: BudgetLedger =
    memory ??
    createBudgetLedger({
      db,
      clock,
      ids,
      logger,
      metrics,
      ...rules,
    });
  if (memory) changes.subscribe(TOPICS.budgets, () => void memory.reloadLimits().catch((error: unknown) => logger.warn({ err: error }, 'cannot reload the budget limits')));
  const service = createBudgetsService({ db, audit, changes, ...(memory && { afterWrite: () => memory.reloadLimits() }) });
  registerBudgetsRoutes(http, { service: authorizeBudgets(service, access), access });
  const reads = createBudgetReadService({ db, clock, identity, retentionDays: config.usage.retentionDays, ...(memory && { held: memory }) });
  registerBudgetReadRoutes(http, { service: authorizeBudgetReads(reads, access), access });

  let timer: NodeJS.Timeout | undefined;
  let reclaiming: Promise<unknown> = Promise.resolve();
  context.lifecycle.onStart(() => {
    timer = setInterval(() => {
      reclaiming = ledger.reclaimExpired().catch((error: unknown) => logger.warn({ err: error }, 'cannot reclaim expired budget reservations'));
    }, RECLAIM_EVERY_MS);
    timer.unref();
  });
  context.lifecycle.onClose(async () => {
    clearInterval(timer);
    // a pass in flight finishes before the database closes under it
    await reclaiming;
  });
  return Promise.resolve({ ledger });
}
