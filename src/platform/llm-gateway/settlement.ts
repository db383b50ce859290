import type { Logger } from 'pino';
import type { BudgetHold, BudgetLedger } from '../budgets/ledger.js';
import type { PricedModel } from '../pricing/catalog.js';
import { priceUsage, type Usage } from '../pricing/rates.js';
import type { UsageEvent } from '../usage/schemas.js';

/*
 * Settlement (PLATFORM-API Part 3 §1.3): exactly once per request, after the response, never delaying
 * it. The cost is priced with the catalog version resolved at admission.
 */

export interface Settlements {
  /** Settles in the background; `usage` null: nothing is charged. */
  settle(input: { hold: BudgetHold | null; event: UsageEvent; priced: PricedModel | undefined; usage: Usage | null }): void;
  /** Resolves once every settlement started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
}

export function createSettlements(options: { ledger: BudgetLedger; logger: Logger }): Settlements {
  const { ledger, logger } = options;
  const pending = new Set<Promise<void>>();
  return {
    settle({ hold, event, priced, usage }) {
      const cost = priced && usage ? { usd: priceUsage(priced.block, usage), pricingCatalogId: priced.versionId } : null;
      const settling = ledger
        .settle({ hold, event, cost })
        .catch((error: unknown) => logger.error({ err: error, eventId: event.id }, 'cannot settle an LLM gateway request; its reservation is released when it expires'))
        .finally(() => pending.delete(settling));
      pending.add(settling);
    },
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
