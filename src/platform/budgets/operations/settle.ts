import { sql, type Kysely } from 'kysely';
import type { Ids } from '../../../core/ids.js';
import type { PlatformDatabase } from '../../db.js';
import { Money } from '../../money.js';
import { addDelta, addToCells, cellsAt, cellId, compareCells, keyRows, type CellDelta, type CellKey } from '../cells.js';
import type { SettlementRequest } from '../ledger.js';
import { dayOf } from '../periods.js';

interface SpendRow extends CellKey {
  model: string;
  provider: string;
  auth_subject: string;
  used: Money;
}

export interface SettleOptions {
  /** Where reservations live: 'database' (rows in budget_reservations, released here) or 'memory' (the caller's, nothing to release here). */
  reservations: 'database' | 'memory';
}

/** The charges a settlement writes, and its cost added to each cell (user, then budgeted groups; day and month). */
export function chargedCells(request: SettlementRequest): { subjects: { scope: 'user' | 'group'; id: string }[]; cells: CellKey[] } {
  const { hold, cost } = request;
  if (!hold || !cost || !cost.usd.greaterThan(0)) return { subjects: [], cells: [] };
  const subjects = [{ scope: 'user' as const, id: hold.caller.subject }, ...hold.budgetedGroupIds.map((id) => ({ scope: 'group' as const, id }))];
  return { subjects, cells: subjects.flatMap((subject) => cellsAt(subject.scope, subject.id, hold.at)) };
}

/**
 * Settles a batch in one transaction (`trx`), each event at most once, in as few statements as the batch
 * allows (one per table; rows travel as one JSON or array parameter per column, so a statement's size and
 * cost to parse stay flat however large the batch): with reservations in the database, they are deleted first (a replica reclaiming
 * them skips them, or has already deleted them and written their event); then the events are inserted, and
 * an event already there was settled or reclaimed: its request does nothing more. The rest: the cost added
 * to the user's and the budgeted groups' day and month cells (and the reservations released) in one upsert,
 * the charges, the per-cell spend. Returns, for each request, whether it took effect.
 */
export async function settleBatch(trx: Kysely<PlatformDatabase>, requests: readonly SettlementRequest[], ids: Ids, options: SettleOptions): Promise<boolean[]> {
  const first = new Map<string, SettlementRequest>();
  const firstAt = new Map<string, number>();
  requests.forEach((request, index) => {
    if (first.has(request.event.id)) return;
    first.set(request.event.id, request);
    firstAt.set(request.event.id, index);
  });
  const held = options.reservations === 'database' ? await releaseReservations(trx, [...first.keys()].sort()) : [];
  const { rows: inserted } = await sql<{ id: string }>`
    insert into usage_events select * from json_populate_recordset(null::usage_events, ${JSON.stringify([...first.values()].map((request) => request.event))}::json)
    on conflict (id) do nothing returning id`.execute(trx);
  const fresh = new Set(inserted.map((row) => row.id));
  const settled = [...first.values()].filter((request) => fresh.has(request.event.id));

  const deltas = new Map<string, { key: CellKey; delta: CellDelta }>();
  // a reservation still held was never settled nor reclaimed: its event is fresh
  for (const row of held) for (const cell of row.cells) addDelta(deltas, cell, { reserved: new Money(row.amount_usd).negated() });

  const spend = new Map<string, SpendRow>();
  const charges = [];
  for (const request of settled) {
    const { hold, event, cost } = request;
    const { subjects } = chargedCells(request);
    if (!hold || !cost) continue;
    const day = dayOf(hold.at);
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
        addDelta(deltas, cell, { used: cost.usd });
        const key = `${cellId(cell)}\u0000${event.model}\u0000${event.provider}\u0000${hold.caller.subject}`;
        const row = spend.get(key);
        if (row) row.used = row.used.plus(cost.usd);
        else spend.set(key, { scope: cell.scope, subject_id: cell.subject_id, period: cell.period, ordinal: cell.ordinal, model: event.model, provider: event.provider, auth_subject: hold.caller.subject, used: cost.usd });
      }
    }
  }

  await addToCells(trx, deltas);
  if (charges.length > 0) {
    await sql`insert into charges select * from json_populate_recordset(null::charges, ${JSON.stringify(charges)}::json) on conflict (event_id, scope, subject_id) do nothing`.execute(trx);
  }
  if (spend.size > 0) await addSpend(trx, [...spend.values()]);
  return requests.map((request, index) => fresh.has(request.event.id) && firstAt.get(request.event.id) === index);
}

/** Deletes the reservations of `eventIds` (sorted: the lock order), returning what they held. */
async function releaseReservations(trx: Kysely<PlatformDatabase>, eventIds: readonly string[]) {
  const { rows } = await sql<{ event_id: string; cells: CellKey[]; amount_usd: string }>`
    delete from budget_reservations where event_id in (
      select event_id from budget_reservations where event_id = any(${eventIds}::uuid[]) order by event_id for update)
    returning event_id, cells, amount_usd`.execute(trx);
  return rows;
}

/** Adds settled spend per (cell, model, provider, auth subject) in one statement, rows in key order. */
async function addSpend(trx: Kysely<PlatformDatabase>, rows: SpendRow[]): Promise<void> {
  rows.sort((a, b) => compareCells(a, b) || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) || (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0) || (a.auth_subject < b.auth_subject ? -1 : a.auth_subject > b.auth_subject ? 1 : 0));
  await sql`
    insert into budget_cell_spend (scope, subject_id, period, ordinal, model, provider, auth_subject, used_usd)
    select key.scope, key.subject_id, key.period, key.ordinal, spent.model, spent.provider, spent.auth_subject, spent.used
    from ${keyRows(rows)} with ordinality as key (scope, subject_id, period, ordinal, position)
    join unnest(${rows.map((row) => row.model)}::text[], ${rows.map((row) => row.provider)}::text[], ${rows.map((row) => row.auth_subject)}::text[], ${rows.map((row) => row.used.toFixed())}::numeric[])
      with ordinality as spent (model, provider, auth_subject, used, position) on spent.position = key.position
    order by key.position
    on conflict (scope, subject_id, period, ordinal, model, provider, auth_subject) do update set used_usd = budget_cell_spend.used_usd + excluded.used_usd`.execute(trx);
}
