import { sql, type Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import { keyRows, type CellKey } from './cells.js';
import type { PeriodKey } from './periods.js';
import type { BudgetPeriod, BudgetScope } from './tables.js';

/*
 * What the budget reads select: cells with their limits, and the per-cell spend. They read budget_limits,
 * budget_cells and budget_cell_spend only (never the charges), so they stay fast however many charges exist.
 */

type Db = Kysely<PlatformDatabase>;

export interface CellRow {
  scope: BudgetScope;
  subject_id: string;
  period: BudgetPeriod;
  ordinal: number;
  period_start: Date;
  period_end: Date;
  limit_usd: string;
  on_default: boolean;
  used_usd: string;
  reserved_usd: string;
}

export interface CellsQuery {
  day: PeriodKey;
  month: PeriodKey;
  scope: BudgetScope | undefined;
  prefix: string | undefined;
  /** The keyset position: rows after (scope, subject_id, period). */
  after: [string, string, string] | undefined;
  limit: number;
  /** User cells with reservations held outside the database (the in-memory ledger's): active like those with a reservation row. */
  held: readonly CellKey[];
}

const periodsOf = (day: PeriodKey, month: PeriodKey) =>
  sql`(values ('day', ${day.ordinal}::integer, ${day.start}::timestamptz, ${day.end}::timestamptz), ('month', ${month.ordinal}::integer, ${month.start}::timestamptz, ${month.end}::timestamptz))`;

/**
 * The cells of the periods of `day` and `month` that have a limit: every budgeted group's, every user's with
 * own limits, and, for users on the default, those with a charge or a reservation in the period. Sorted by
 * scope, subject_id (byte order), period; one more row than `limit` says another page exists.
 */
export async function listCells(db: Db, query: CellsQuery): Promise<CellRow[]> {
  const conditions = [sql`candidate.limit_usd is not null`];
  if (query.scope !== undefined) conditions.push(sql`candidate.scope = ${query.scope}`);
  if (query.prefix !== undefined) conditions.push(sql`left(candidate.subject_id, ${query.prefix.length}::integer) = ${query.prefix}`);
  if (query.after) {
    const [scope, subject, period] = query.after;
    conditions.push(sql`(candidate.scope > ${scope}
      or (candidate.scope = ${scope} and candidate.subject_id collate "C" > ${subject})
      or (candidate.scope = ${scope} and candidate.subject_id = ${subject} and candidate.period > ${period}))`);
  }
  const result = await sql<CellRow>`
    with fallback as (
      select
        (select day_limit_usd from budget_limits where scope = 'default') as day,
        (select month_limit_usd from budget_limits where scope = 'default') as month
    ),
    periods (period, ordinal, period_start, period_end) as ${periodsOf(query.day, query.month)},
    candidate as (
      select l.scope, l.subject_id, p.period, p.ordinal, p.period_start, p.period_end,
        coalesce(case p.period when 'day' then l.day_limit_usd else l.month_limit_usd end,
                 case when l.scope = 'user' then (case p.period when 'day' then f.day else f.month end) end) as limit_usd,
        (l.scope = 'user' and (case p.period when 'day' then l.day_limit_usd else l.month_limit_usd end) is null) as on_default
      from budget_limits l cross join periods p cross join fallback f
      where l.scope in ('user', 'group')
      union all
      select c.scope, c.subject_id, p.period, p.ordinal, p.period_start, p.period_end,
        (case p.period when 'day' then f.day else f.month end) as limit_usd, true as on_default
      from (select scope, subject_id, period, ordinal from budget_cells where scope = 'user' and (used_usd > 0 or reserved_usd > 0)
            union select * from ${keyRows(query.held)}) c
      join periods p on c.period = p.period and c.ordinal = p.ordinal cross join fallback f
      where c.scope = 'user'
        and not exists (select 1 from budget_limits l where l.scope = 'user' and l.subject_id = c.subject_id)
    )
    select candidate.*, coalesce(cell.used_usd, 0) as used_usd, coalesce(cell.reserved_usd, 0) as reserved_usd
    from candidate
    left join budget_cells cell on cell.scope = candidate.scope and cell.subject_id = candidate.subject_id and cell.period = candidate.period and cell.ordinal = candidate.ordinal
    where ${sql.join(conditions, sql` and `)}
    order by candidate.scope collate "C", candidate.subject_id collate "C", candidate.period collate "C"
    limit ${query.limit + 1}`.execute(db);
  return result.rows;
}

/** A cell's totals; undefined when no request ever reached it. */
export async function cellTotals(db: Db, key: CellKey): Promise<{ used_usd: string; reserved_usd: string } | undefined> {
  return db
    .selectFrom('budget_cells')
    .select(['used_usd', 'reserved_usd'])
    .where('scope', '=', key.scope)
    .where('subject_id', '=', key.subject_id)
    .where('period', '=', key.period)
    .where('ordinal', '=', key.ordinal)
    .executeTakeFirst();
}

/** The totals of several cells at once. */
export async function cellsTotals(db: Db, keys: readonly CellKey[]): Promise<(CellKey & { used_usd: string; reserved_usd: string })[]> {
  if (keys.length === 0) return [];
  const result = await sql<CellKey & { used_usd: string; reserved_usd: string }>`
    select scope, subject_id, period, ordinal, used_usd, reserved_usd from budget_cells where (scope, subject_id, period, ordinal) in (select * from ${keyRows(keys)})`.execute(db);
  return result.rows;
}

export type SpendDimension = 'model' | 'provider' | 'auth_subject';

/** A cell's settled spend summed by one dimension, sorted by amount (largest first) then value (byte order). */
export async function cellSpend(db: Db, key: CellKey, dimension: SpendDimension): Promise<{ value: string; used_usd: string }[]> {
  const column = sql.ref(dimension);
  const result = await sql<{ value: string; used_usd: string }>`
    select ${column} as value, sum(used_usd) as used_usd from budget_cell_spend
    where scope = ${key.scope} and subject_id = ${key.subject_id} and period = ${key.period} and ordinal = ${key.ordinal}
    group by ${column}
    order by sum(used_usd) desc, ${column} collate "C"`.execute(db);
  return result.rows;
}

/** What `authSubject` contributed to each of `keys` (cells it never spent in are absent). */
export async function contributions(db: Db, keys: readonly CellKey[], authSubject: string): Promise<(CellKey & { used_usd: string })[]> {
  if (keys.length === 0) return [];
  const result = await sql<CellKey & { used_usd: string }>`
    select scope, subject_id, period, ordinal, sum(used_usd) as used_usd from budget_cell_spend
    where auth_subject = ${authSubject} and (scope, subject_id, period, ordinal) in (select * from ${keyRows(keys)})
    group by scope, subject_id, period, ordinal`.execute(db);
  return result.rows;
}

/** The directory users bound to `subject` under any issuer, and every group they are in, directly or through nesting. */
export async function directoryGroupsOf(db: Db, subject: string): Promise<{ found: boolean; groupIds: string[] }> {
  const users = await db.selectFrom('user_identities').select('user_id').where('external_id', '=', subject).execute();
  if (users.length === 0) return { found: false, groupIds: [] };
  const ids = users.map((user) => user.user_id);
  const result = await sql<{ id: string }>`
    with recursive above (id) as (
      select group_id from group_members where member_type = 'user' and member_id in (${sql.join(ids.map((id) => sql`${id}::uuid`))})
      union
      select m.group_id from group_members m join above a on m.member_type = 'group' and m.member_id = a.id
    )
    select id from above order by id`.execute(db);
  return { found: true, groupIds: result.rows.map((row) => row.id) };
}

/** The user's group charges since `from`, summed per group; and whether the user has any charge since then. */
export async function groupChargesOf(db: Db, subject: string, from: Date): Promise<{ any: boolean; groups: { value: string; used_usd: string }[] }> {
  const result = await sql<{ scope: BudgetScope; value: string; used_usd: string }>`
    select scope, subject_id as value, sum(charged_usd) as used_usd from charges
    where auth_subject = ${subject} and event_time >= ${from}
    group by scope, subject_id`.execute(db);
  return { any: result.rows.length > 0, groups: result.rows.filter((row) => row.scope === 'group').map(({ value, used_usd }) => ({ value, used_usd })) };
}

/** Which of `ids` have a group budget. */
export async function budgetedGroups(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('budget_limits').select('subject_id').where('scope', '=', 'group').where('subject_id', 'in', [...ids]).execute();
  return rows.map((row) => row.subject_id);
}
