import { sql, type Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { Money } from '../../money.js';
import { cellId, cellsAt, lockCells, uniqueSorted, type CellSpec, type CellState } from '../cells.js';
import { decideAdmissions, planOf, type AdmitRules } from '../decide.js';
import type { AdmissionDecision, AdmissionRequest } from '../ledger.js';
import { readLimits, viewOf, type LimitRow, type LimitsView } from '../limits.js';

export interface AdmitOptions extends AdmitRules {
  /** How long a reservation is kept past admission before a replica may reclaim it (upstreamTimeout + 60 s). */
  holdMs: number;
}

export interface AdmitBatchResult {
  /** One per request, in order. */
  decisions: AdmissionDecision[];
  /** How many requests soft enforcement admitted although a cell had no room. */
  overruns: number;
}

/**
 * Admits a batch of requests in one transaction (`trx`) of two statements: the first reads the limits (so a
 * change applies from the next admission) and creates and locks, in key order, every cell the batch may be
 * held to (those of its users and groups that have a limit row, or fall to the default); each request is
 * then decided in arrival order against the totals the earlier ones left (all of its cells or none); the
 * second adds the reservations to the cells and records them.
 */
export async function admitBatch(trx: Kysely<PlatformDatabase>, requests: readonly AdmissionRequest[], options: AdmitOptions): Promise<AdmitBatchResult> {
  const subjects = [...new Set(requests.map((request) => request.caller.subject))];
  const groups = [...new Set(requests.flatMap((request) => request.caller.groupIds))];
  if (options.enforcement === 'off') {
    const view = await readLimits(trx, subjects, groups);
    return { decisions: decideAdmissions(requests.map((request) => planOf(view, request)), new Map(), options).decisions, overruns: 0 };
  }
  const candidates = uniqueSorted(
    requests.flatMap((request) => [...cellsAt('user', request.caller.subject, request.at), ...request.caller.groupIds.flatMap((id) => cellsAt('group', id, request.at))]),
  );
  const { view, states } = await lockCandidates(trx, subjects, groups, candidates);
  const plans = requests.map((request) => planOf(view, request));
  // a cell whose row another transaction committed while the statement ran is not in its snapshot: locked again here
  const missing = plans.flatMap((plan) => plan.cells.map((applicable) => applicable.cell)).filter((cell) => !states.has(cellId(cell)));
  if (missing.length > 0) for (const [id, state] of await lockCells(trx, missing)) states.set(id, state);
  const { decisions, reservations, deltas, overruns } = decideAdmissions(plans, states, options);
  if (reservations.length === 0) return { decisions, overruns };

  const changed = [...deltas.values()];
  const rows = reservations.map(({ request, cells }) => ({
    event_id: request.eventId,
    cells,
    amount_usd: request.maxCost.toFixed(),
    admitted_at: request.at,
    expires_at: new Date(request.at.getTime() + options.holdMs),
    event: request.pendingEvent,
  }));
  await sql`
    with changed as (
      update budget_cells as cell set reserved_usd = cell.reserved_usd + change.reserved
      from unnest(${changed.map(({ key }) => key.scope)}::text[], ${changed.map(({ key }) => key.subject_id)}::text[], ${changed.map(({ key }) => key.period)}::text[],
                  ${changed.map(({ key }) => key.ordinal)}::integer[], ${changed.map(({ delta }) => delta.reserved.toFixed())}::numeric[]) as change (scope, subject_id, period, ordinal, reserved)
      where cell.scope = change.scope and cell.subject_id = change.subject_id and cell.period = change.period and cell.ordinal = change.ordinal)
    insert into budget_reservations select * from json_populate_recordset(null::budget_reservations, ${JSON.stringify(rows)}::json)`.execute(trx);
  return { decisions, overruns };
}

/** One statement: the limits of `subjects`, `groups` and the default, and the candidate cells that have one, created if missing and locked. */
async function lockCandidates(trx: Kysely<PlatformDatabase>, subjects: string[], groups: string[], candidates: CellSpec[]): Promise<{ view: LimitsView; states: Map<string, CellState> }> {
  const { rows } = await sql<{ kind: 'limit' | 'cell'; scope: LimitRow['scope']; subject_id: string; period: 'day' | 'month' | null; ordinal: number | null; a: string | null; b: string | null }>`
    with limits as (
      select scope, subject_id, day_limit_usd, month_limit_usd from budget_limits
      where scope = 'default' or (scope = 'user' and subject_id = any(${subjects}::text[])) or (scope = 'group' and subject_id = any(${groups}::text[]))),
    wanted as (
      select key.* from unnest(${candidates.map((cell) => cell.scope)}::text[], ${candidates.map((cell) => cell.subject_id)}::text[], ${candidates.map((cell) => cell.period)}::text[],
                               ${candidates.map((cell) => cell.ordinal)}::integer[], ${candidates.map((cell) => cell.start.toISOString())}::timestamptz[], ${candidates.map((cell) => cell.end.toISOString())}::timestamptz[])
        with ordinality as key (scope, subject_id, period, ordinal, period_start, period_end, position)
      where exists (select 1 from limits where (limits.scope = key.scope and limits.subject_id = key.subject_id) or (key.scope = 'user' and limits.scope = 'default'))),
    created as (
      insert into budget_cells (scope, subject_id, period, ordinal, period_start, period_end)
      select scope, subject_id, period, ordinal, period_start, period_end from wanted order by position
      on conflict do nothing
      returning scope, subject_id, period, ordinal, used_usd::text as used_usd, reserved_usd::text as reserved_usd),
    locked as (
      select cell.scope, cell.subject_id, cell.period, cell.ordinal, cell.used_usd::text as used_usd, cell.reserved_usd::text as reserved_usd from budget_cells cell
      where (cell.scope, cell.subject_id, cell.period, cell.ordinal) in (select scope, subject_id, period, ordinal from wanted)
      order by cell.scope collate "C", cell.subject_id collate "C", cell.period collate "C", cell.ordinal
      for update of cell)
    select 'limit' as kind, scope, subject_id, null::text as period, null::integer as ordinal, day_limit_usd::text as a, month_limit_usd::text as b from limits
    union all select 'cell', scope, subject_id, period, ordinal, used_usd, reserved_usd from created
    union all select 'cell', scope, subject_id, period, ordinal, used_usd, reserved_usd from locked`.execute(trx);
  const states = new Map<string, CellState>();
  const limitRows: LimitRow[] = [];
  for (const row of rows) {
    if (row.kind === 'limit') limitRows.push({ scope: row.scope, subject_id: row.subject_id, day_limit_usd: row.a, month_limit_usd: row.b });
    else if (row.scope !== 'default' && row.period !== null && row.ordinal !== null) {
      states.set(cellId({ scope: row.scope, subject_id: row.subject_id, period: row.period, ordinal: row.ordinal }), { used: new Money(row.a ?? 0), reserved: new Money(row.b ?? 0) });
    }
  }
  return { view: viewOf(limitRows), states };
}
