import { sql, type Kysely } from 'kysely';
import { dayOf, monthOf } from '../../budgets/periods.js';
import type { PlatformDatabase } from '../../db.js';

/** Any fixed number: the advisory lock one replica at a time deletes expired records under. */
const RETENTION_LOCK = 7_411_012;

export interface DeletedRecords {
  charges: number;
  usageEvents: number;
  budgetCells: number;
  budgetCellSpend: number;
}

/**
 * Deletes what lies before the retention horizon (a 00:00Z): charges and usage events admitted before it,
 * and the budget cells and per-cell spend of periods that ended by then (a period ends by the horizon
 * exactly when its ordinal is below that of the period containing the horizon). Returns null, deleting
 * nothing, when another replica holds the lock: it is doing the same work.
 */
export async function deleteExpired(trx: Kysely<PlatformDatabase>, horizon: Date): Promise<DeletedRecords | null> {
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${RETENTION_LOCK}) as locked`.execute(trx);
  if (rows[0]?.locked !== true) return null;
  const day = dayOf(horizon).ordinal;
  const month = monthOf(horizon).ordinal;
  const charges = await trx.deleteFrom('charges').where('event_time', '<', horizon).executeTakeFirst();
  const usageEvents = await trx.deleteFrom('usage_events').where('event_time', '<', horizon).executeTakeFirst();
  const budgetCells = await trx
    .deleteFrom('budget_cells')
    .where((eb) => eb.or([eb.and([eb('period', '=', 'day'), eb('ordinal', '<', day)]), eb.and([eb('period', '=', 'month'), eb('ordinal', '<', month)])]))
    .executeTakeFirst();
  const budgetCellSpend = await trx
    .deleteFrom('budget_cell_spend')
    .where((eb) => eb.or([eb.and([eb('period', '=', 'day'), eb('ordinal', '<', day)]), eb.and([eb('period', '=', 'month'), eb('ordinal', '<', month)])]))
    .executeTakeFirst();
  return {
    charges: Number(charges.numDeletedRows),
    usageEvents: Number(usageEvents.numDeletedRows),
    budgetCells: Number(budgetCells.numDeletedRows),
    budgetCellSpend: Number(budgetCellSpend.numDeletedRows),
  };
}
