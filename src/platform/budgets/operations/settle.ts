import { sql, type Kysely } from 'kysely';
import type { Ids } from '../../../core/ids.js';
import type { PlatformDatabase } from '../../db.js';
import { cellsAt, type CellSpec } from '../cells.js';
import type { SettlementRequest } from '../ledger.js';

export interface SettleOptions {
  /** Where reservations live: 'database' (rows in budget_reservations, released here) or 'memory' (the caller's, nothing to release here). */
  reservations: 'database' | 'memory';
}

/** One charged subject of a settlement: the user or a budgeted group, with the day and month cells its cost is added to. */
export interface ChargedSubject {
  scope: 'user' | 'group';
  id: string;
  cells: [CellSpec, CellSpec];
}

/** A settlement with who it charges, worked out once: the in-memory ledger needs the same cells before the batch runs. */
export interface Settling {
  request: SettlementRequest;
  subjects: ChargedSubject[];
}

/** Who a settlement charges: the user, then the budgeted groups. */
export function chargedSubjects(request: SettlementRequest): ChargedSubject[] {
  const { hold, cost } = request;
  if (!hold || !cost || !cost.usd.greaterThan(0)) return [];
  const subjects = [{ scope: 'user' as const, id: hold.caller.subject }, ...hold.budgetedGroupIds.map((id) => ({ scope: 'group' as const, id }))];
  return subjects.map((subject) => ({ ...subject, cells: cellsAt(subject.scope, subject.id, hold.at) }));
}

export const settling = (request: SettlementRequest): Settling => ({ request, subjects: chargedSubjects(request) });

/**
 * Settles a batch in one statement, atomic on its own, each event at most once; rows travel as one JSON or
 * array parameter per kind, so the statement's text, and so its prepared plan, is the same however large the
 * batch. In order: with reservations in the database, they are deleted first (a replica reclaiming them skips
 * them, or has already deleted them and written their event), before any event is written, the order every
 * writer takes them in; then the events are inserted, and an event already there was settled or reclaimed:
 * its request does nothing more. For the rest: the charges; the cost added to the user's and the budgeted
 * groups' day and month cells, and the reservations released, in one upsert in lock order; the per-cell
 * spend. A charge travels with its two cells and without what its event already holds (model, provider,
 * interaction), and the cells' amounts are worked out from the charges: the embedded engine's cost grows with
 * the bytes it reads. Returns, for each request, whether it took effect.
 */
export async function settleBatch(db: Kysely<PlatformDatabase>, batch: readonly Settling[], ids: Ids, options: SettleOptions): Promise<boolean[]> {
  const first = new Map<string, Settling>();
  const firstAt = new Map<string, number>();
  batch.forEach((item, index) => {
    if (first.has(item.request.event.id)) return;
    first.set(item.request.event.id, item);
    firstAt.set(item.request.event.id, index);
  });
  const charges = [];
  for (const { request, subjects } of first.values()) {
    const { hold, event, cost } = request;
    if (!hold || !cost) continue;
    const usd = cost.usd.toFixed();
    for (const { scope, id, cells } of subjects) {
      const [day, month] = cells;
      charges.push({
        id: ids.uuid(),
        event_id: event.id,
        event_time: hold.at,
        scope,
        subject_id: id,
        auth_subject: hold.caller.subject,
        charged_usd: usd,
        pricing_catalog_id: cost.pricingCatalogId,
        day: day.ordinal,
        period_start: day.start,
        period_end: day.end,
        month: month.ordinal,
        month_start: month.start,
        month_end: month.end,
      });
    }
  }
  const released = options.reservations === 'database' ? [...first.keys()].sort() : [];
  const { rows } = await sql<{ id: string }>`
    with released as (
      delete from budget_reservations where event_id in (
        select event_id from budget_reservations where event_id = any(${released}::uuid[]) order by event_id for update)
      returning cells, amount_usd
    ), fresh as (
      insert into usage_events select * from json_populate_recordset(null::usage_events, ${JSON.stringify([...first.values()].map((item) => item.request.event))}::json)
      -- a condition on the deleted reservations: they are deleted, and so locked, before the first event is written
      where (select count(*) from released) >= 0
      on conflict (id) do nothing returning id, model, provider, interaction_id
    ), costs as (
      select charge.*, fresh.model, fresh.provider, fresh.interaction_id
      from json_to_recordset(${JSON.stringify(charges)}::json) as charge(id uuid, event_id uuid, event_time timestamptz, scope text, subject_id text, auth_subject text,
        charged_usd numeric, pricing_catalog_id uuid, day integer, period_start timestamptz, period_end timestamptz, month integer, month_start timestamptz, month_end timestamptz)
      join fresh on fresh.id = charge.event_id
    ), charged as (
      insert into charges (id, event_id, event_time, scope, subject_id, auth_subject, charged_usd, model, provider, interaction_id, period_start, period_end, pricing_catalog_id)
      select id, event_id, event_time, scope, subject_id, auth_subject, charged_usd, model, provider, interaction_id, period_start, period_end, pricing_catalog_id from costs
      on conflict (event_id, scope, subject_id) do nothing
    ), amounts as (
      select costs.scope, costs.subject_id, cell.period, cell.ordinal, cell.start, cell."end", costs.charged_usd as used, costs.model, costs.provider, costs.auth_subject
      from costs cross join lateral (values ('day', costs.day, costs.period_start, costs.period_end), ('month', costs.month, costs.month_start, costs.month_end))
        as cell(period, ordinal, start, "end")
    ), releases as (
      -- a reservation still held was never settled nor reclaimed: its event is fresh
      select cell.scope, cell.subject_id, cell.period, cell.ordinal, bounds.period_start, bounds.period_end, -released.amount_usd as reserved
      from released cross join jsonb_to_recordset(released.cells) as cell(scope text, subject_id text, period text, ordinal integer)
      join budget_cells as bounds using (scope, subject_id, period, ordinal)
    ), cells as (
      insert into budget_cells (scope, subject_id, period, ordinal, period_start, period_end, used_usd, reserved_usd)
      select scope, subject_id, period, ordinal, min(period_start), min(period_end), sum(used), sum(reserved)
      from (select scope, subject_id, period, ordinal, start as period_start, "end" as period_end, used, 0 as reserved from amounts
            union all select scope, subject_id, period, ordinal, period_start, period_end, 0, reserved from releases) as delta
      group by scope, subject_id, period, ordinal
      order by scope collate "C", subject_id collate "C", period collate "C", ordinal
      on conflict (scope, subject_id, period, ordinal) do update
        set used_usd = budget_cells.used_usd + excluded.used_usd, reserved_usd = budget_cells.reserved_usd + excluded.reserved_usd
    ), spend as (
      insert into budget_cell_spend (scope, subject_id, period, ordinal, model, provider, auth_subject, used_usd)
      select scope, subject_id, period, ordinal, model, provider, auth_subject, sum(used) from amounts
      group by scope, subject_id, period, ordinal, model, provider, auth_subject
      order by scope collate "C", subject_id collate "C", period collate "C", ordinal, model collate "C", provider collate "C", auth_subject collate "C"
      on conflict (scope, subject_id, period, ordinal, model, provider, auth_subject) do update set used_usd = budget_cell_spend.used_usd + excluded.used_usd
    )
    select id from fresh`.execute(db);
  const fresh = new Set(rows.map((row) => row.id));
  return batch.map(({ request }, index) => fresh.has(request.event.id) && firstAt.get(request.event.id) === index);
}
