import { sql, type Kysely } from 'kysely';
import type { Ids } from '../../../core/ids.js';
import type { PlatformDatabase } from '../../db.js';
import { Money } from '../../money.js';
import { addDelta, applyCellDeltas, cellsAt, cellId, lockCells, type CellDelta, type CellKey, type CellSpec } from '../cells.js';
import { eventRow } from '../events.js';
import type { SettlementRequest } from '../ledger.js';
import { dayOf, periodAt } from '../periods.js';

interface SpendRow extends CellKey {
  model: string;
  provider: string;
  auth_subject: string;
  used: Money;
}

/**
 * Settles a batch in one transaction (`trx`), each event at most once: reservations are locked first (a
 * replica reclaiming them skips them, or has already written their event), then the events are inserted;
 * an event already there was settled or reclaimed, and its request does nothing more. The rest: release
 * the reservation, add the cost to the user's and the budgeted groups' day and month cells, write the
 * charges and the per-cell spend.
 */
export async function settleBatch(trx: Kysely<PlatformDatabase>, requests: readonly SettlementRequest[], ids: Ids): Promise<void> {
  const first = new Map<string, SettlementRequest>();
  for (const request of requests) if (!first.has(request.event.id)) first.set(request.event.id, request);
  const eventIds = [...first.keys()].sort();
  const held = await trx.selectFrom('budget_reservations').select(['event_id', 'cells', 'amount_usd']).where(sql<boolean>`event_id = any(${eventIds}::uuid[])`).orderBy('event_id').forUpdate().execute();
  const inserted = await trx
    .insertInto('usage_events')
    .values([...first.values()].map((request) => eventRow(request.event)))
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .execute();
  const fresh = new Set(inserted.map((row) => row.id));
  const settling = [...first.values()].filter((request) => fresh.has(request.event.id) && request.hold !== null);
  if (settling.length === 0) return;

  const released = held.filter((row) => fresh.has(row.event_id));
  const deltas = new Map<string, { key: CellKey; delta: CellDelta }>();
  for (const row of released) for (const cell of row.cells) addDelta(deltas, cell, { reserved: new Money(row.amount_usd).negated() });

  const touched: CellSpec[] = [];
  const spend = new Map<string, SpendRow>();
  const charges = [];
  for (const { hold, event, cost } of settling) {
    if (!hold || !cost || !cost.usd.greaterThan(0)) continue;
    const day = dayOf(hold.at);
    const subjects = [
      { scope: 'user' as const, id: hold.caller.subject },
      ...hold.budgetedGroupIds.map((id) => ({ scope: 'group' as const, id })),
    ];
    for (const subject of subjects) {
      charges.push({
        id: ids.uuid(),
        event_id: event.id,
        event_time: hold.at,
        scope: subject.scope,
        subject_id: subject.id,
        auth_subject: hold.caller.subject,
        charged_usd: cost.usd.toFixed(),
        model: event.model,
        provider: event.provider,
        interaction_id: event.interaction_id,
        period_start: day.start,
        period_end: day.end,
        pricing_catalog_id: cost.pricingCatalogId,
      });
      for (const cell of cellsAt(subject.scope, subject.id, hold.at)) {
        touched.push(cell);
        addDelta(deltas, cell, { used: cost.usd });
        const key = `${cellId(cell)}\u0000${event.model}\u0000${event.provider}\u0000${hold.caller.subject}`;
        const row = spend.get(key);
        if (row) row.used = row.used.plus(cost.usd);
        else spend.set(key, { scope: cell.scope, subject_id: cell.subject_id, period: cell.period, ordinal: cell.ordinal, model: event.model, provider: event.provider, auth_subject: hold.caller.subject, used: cost.usd });
      }
    }
  }

  // the cells reserved on exist already; lockCells creates the ones a charge reaches for the first time
  const reservedCells = released.flatMap((row) => row.cells.map((cell) => ({ ...cell, ...periodAt(cell.period, cell.ordinal) })));
  await lockCells(trx, [...reservedCells, ...touched]);
  await applyCellDeltas(trx, deltas);
  if (charges.length > 0) {
    await trx.insertInto('charges').values(charges).onConflict((conflict) => conflict.columns(['event_id', 'scope', 'subject_id']).doNothing()).execute();
  }
  if (spend.size > 0) {
    await trx
      .insertInto('budget_cell_spend')
      .values([...spend.values()].map(({ used, ...row }) => ({ ...row, used_usd: used.toFixed() })))
      .onConflict((conflict) =>
        conflict.columns(['scope', 'subject_id', 'period', 'ordinal', 'model', 'provider', 'auth_subject']).doUpdateSet((eb) => ({ used_usd: eb('budget_cell_spend.used_usd', '+', eb.ref('excluded.used_usd')) })),
      )
      .execute();
  }
  if (released.length > 0) await trx.deleteFrom('budget_reservations').where(sql<boolean>`event_id = any(${released.map((row) => row.event_id)}::uuid[])`).execute();
}

