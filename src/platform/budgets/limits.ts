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

export async function readLimits(trx: Kysely<PlatformDatabase>, callers: readonly LedgerCaller[]): Promise<LimitsView> {
  const subjects = [...new Set(callers.map((caller) => caller.subject))];
  const groups = [...new Set(callers.flatMap((caller) => caller.groupIds))];
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
  const view: LimitsView = { defaultUser: NONE, users: new Map(), groups: new Map() };
  for (const row of rows) {
    const limits = { day: row.day_limit_usd === null ? null : new Money(row.day_limit_usd), month: row.month_limit_usd === null ? null : new Money(row.month_limit_usd) };
    if (row.scope === 'default') view.defaultUser = limits;
    else (row.scope === 'user' ? view.users : view.groups).set(row.subject_id, limits);
  }
  return view;
}

/**
 * The cells that apply to `caller` at `at`, in the order a refusal names them: user day, user month, then
 * each budgeted group by subject_id, day before month. A user period without an own limit takes the
 * default's; a null limit is no budget for that period. Groups with any budget are the budgeted ones.
 */
export function applicableCells(view: LimitsView, caller: LedgerCaller, at: Date): { cells: ApplicableCell[]; budgetedGroupIds: string[] } {
  const cells: ApplicableCell[] = [];
  const own = view.users.get(caller.subject) ?? NONE;
  for (const cell of cellsAt('user', caller.subject, at)) {
    const limit = own[cell.period] ?? view.defaultUser[cell.period];
    if (limit !== null) cells.push({ cell, limit, onDefault: own[cell.period] === null });
  }
  const budgetedGroupIds = [...new Set(caller.groupIds)].filter((id) => view.groups.has(id)).sort();
  for (const groupId of budgetedGroupIds) {
    const limits = view.groups.get(groupId) ?? NONE;
    for (const cell of cellsAt('group', groupId, at)) {
      const limit = limits[cell.period];
      if (limit !== null) cells.push({ cell, limit, onDefault: false });
    }
  }
  return { cells, budgetedGroupIds };
}
