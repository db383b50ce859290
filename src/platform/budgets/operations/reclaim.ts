import { sql, type Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import type { UsageEvent } from '../../usage/schemas.js';
import { Money } from '../../money.js';
import { addDelta, applyCellDeltas, lockCells, type CellDelta, type CellKey } from '../cells.js';
import { eventRow } from '../events.js';
import { periodAt } from '../periods.js';

/**
 * Releases reservations past their expiry (their replica crashed or lost them) in one transaction (`trx`):
 * each is released from its cells and deleted, and its pending event written as an upstream_error without an
 * upstream answer and without a charge. `skip locked`: replicas reclaiming at once, or a settlement holding
 * one, never wait on each other. Returns how many were reclaimed.
 */
export async function reclaimExpired(trx: Kysely<PlatformDatabase>, now: Date, batchSize: number): Promise<number> {
  const rows = await trx
    .selectFrom('budget_reservations')
    .select(['event_id', 'cells', 'amount_usd', 'event'])
    .where('expires_at', '<', now)
    .orderBy('event_id')
    .limit(batchSize)
    .forUpdate()
    .skipLocked()
    .execute();
  if (rows.length === 0) return 0;
  const events = rows.map((row) => eventRow({ ...(row.event as UsageEvent), outcome: 'upstream_error', upstream_status: 0 }));
  await trx.insertInto('usage_events').values(events).onConflict((conflict) => conflict.column('id').doNothing()).execute();
  const deltas = new Map<string, { key: CellKey; delta: CellDelta }>();
  for (const row of rows) for (const cell of row.cells) addDelta(deltas, cell, { reserved: new Money(row.amount_usd).negated() });
  await lockCells(
    trx,
    rows.flatMap((row) => row.cells.map((cell) => ({ ...cell, ...periodAt(cell.period, cell.ordinal) }))),
  );
  await applyCellDeltas(trx, deltas);
  await trx.deleteFrom('budget_reservations').where(sql<boolean>`event_id = any(${rows.map((row) => row.event_id)}::uuid[])`).execute();
  return rows.length;
}
