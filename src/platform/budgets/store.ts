import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { BudgetLimitsTable } from './tables.js';

export type LimitRow = Selectable<BudgetLimitsTable>;
type Db = Kysely<PlatformDatabase>;

/** The settings row, locked: budget writes on every replica take turns on it. Returns the collection's version. */
export async function lockSettings(trx: Db): Promise<string> {
  const row = await trx.selectFrom('budget_settings').select('version').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
  return row.version;
}

/** The version, read sharing the lock writers take: the rows read after it in the same transaction match it. */
export async function readVersion(trx: Db): Promise<string> {
  const row = await trx.selectFrom('budget_settings').select('version').where('id', '=', 1).forShare().executeTakeFirstOrThrow();
  return row.version;
}

export async function bumpVersion(trx: Db): Promise<string> {
  const row = await trx
    .updateTable('budget_settings')
    .set({ version: sql<string>`version + 1` })
    .where('id', '=', 1)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

export async function listLimits(db: Db): Promise<LimitRow[]> {
  return db.selectFrom('budget_limits').selectAll().orderBy('scope').orderBy('subject_id').execute();
}

export async function replaceLimits(trx: Db, rows: readonly LimitRow[]): Promise<void> {
  await trx.deleteFrom('budget_limits').execute();
  if (rows.length > 0) await trx.insertInto('budget_limits').values([...rows]).execute();
}

/** Sets one subject's limits; both null removes the row. */
export async function putLimits(trx: Db, row: LimitRow): Promise<void> {
  if (row.day_limit_usd === null && row.month_limit_usd === null) {
    await trx.deleteFrom('budget_limits').where('scope', '=', row.scope).where('subject_id', '=', row.subject_id).execute();
    return;
  }
  await trx
    .insertInto('budget_limits')
    .values(row)
    .onConflict((conflict) => conflict.columns(['scope', 'subject_id']).doUpdateSet({ day_limit_usd: row.day_limit_usd, month_limit_usd: row.month_limit_usd }))
    .execute();
}

/** Which of `ids` are directory groups. */
export async function existingGroups(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('groups').select('id').where('id', 'in', [...ids]).execute();
  return new Set(rows.map((row) => row.id));
}
