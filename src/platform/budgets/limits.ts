import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import { Money } from '../money.js';
import { cellsAt, type CellSpec } from './cells.js';
import type { LedgerCaller } from './ledger.js';
import type { BudgetPeriod } from './tables.js';

/** The limits that matter to a set of callers, as read inside a ledger transaction. */
export interface LimitsView {
  defaultUser: Limits;
  users: Map<string, Limits>;
  groups: Map<string, Limits>;
}

type Limits = Record<BudgetPeriod, Money | null>;

const NONE: Limits = { day: null, month: null };

/** A cell that applies to a caller, with the limit it is held to. */
export interface ApplicableCell {
  cell: CellSpec;
  limit: Money;
  onDefault: boolean;
}

/** The default's limits and those of the named users and groups. */
export async function readLimits(trx: Kysely<PlatformDatabase>, userSubjects: readonly string[], groupIds: readonly string[]): Promise<LimitsView> {
  const subjects = [...new Set(userSubjects)];
  const groups = [...new Set(groupIds)];
  const rows = await trx
    .selectFrom('budget_limits')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('scope', '=', 'default'),
        ...(subjects.length > 0 ? [eb.and([eb('scope', '=', 'user'), eb('subject_id', 'in', subjects)])] : []),
        ...(groups.length > 0 ? [eb.and([eb('scope', '=', 'group'), eb('subject_id', 'in', groups)])] : []),
      ]),
    )
    .execute();
  return viewOf(rows);
}

/** Every limit of the collection (what the in-memory ledger holds). */
export async function readAllLimits(db: Kysely<PlatformDatabase>): Promise<LimitsView> {
  return viewOf(await db.selectFrom('budget_limits').selectAll().execute());
}

/** A row of budget_limits as the ledger reads it. */
export interface LimitRow {
  scope: 'default' | 'user' | 'group';
  subject_id: string;
  day_limit_usd: string | null;
  month_limit_usd: string | null;
}

export function viewOf(rows: readonly LimitRow[]): LimitsView {
  const view: LimitsView = { defaultUser: NONE, users: new Map(), groups: new Map() };
  for (const row of rows) {
    const limits = { day: row.day_limit_usd === null ? null : new Money(row.day_limit_usd), month: row.month_limit_usd === null ? null : new Money(row.month_limit_usd) };
    if (row.scope === 'default') view.defaultUser = limits;
    else (row.scope === 'user' ? view.users : view.groups).set(row.subject_id, limits);
  }
  return view;
}

/** The limit of one cell, and whether it is the default's; a null limit: no budget for that period. */
export function limitOf(view: LimitsView, scope: 'user' | 'group', subjectId: string, period: BudgetPeriod): { limit: Money | null; onDefault: boolean } {
  if (scope === 'group') return { limit: view.groups.get(subjectId)?.[period] ?? null, onDefault: false };
  const own = view.users.get(subjectId)?.[period] ?? null;
  return own === null ? { limit: view.defaultUser[period], onDefault: true } : { limit: own, onDefault: false };
}

/**
 * The cells that apply to `caller` at `at`, in the order a refusal names them: user day, user month, then
 * each budgeted group by subject_id, day before month. A user period without an own limit takes the
 * default's; a null limit is no budget for that period. Groups with any budget are the budgeted ones.
 */
export function applicableCells(view: LimitsView, caller: LedgerCaller, at: Date): { cells: ApplicableCell[]; budgetedGroupIds: string[] } {
  const cells: ApplicableCell[] = [];
  for (const cell of cellsAt('user', caller.subject, at)) {
    const { limit, onDefault } = limitOf(view, 'user', caller.subject, cell.period);
    if (limit !== null) cells.push({ cell, limit, onDefault });
  }
  const budgetedGroupIds = [...new Set(caller.groupIds)].filter((id) => view.groups.has(id)).sort();
  for (const groupId of budgetedGroupIds) {
    for (const cell of cellsAt('group', groupId, at)) {
      const { limit } = limitOf(view, 'group', groupId, cell.period);
      if (limit !== null) cells.push({ cell, limit, onDefault: false });
    }
  }
  return { cells, budgetedGroupIds };
}
