import type { Kysely, Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { PricingSettingsTable, PricingVersionsTable } from './tables.js';

export type VersionRow = Selectable<PricingVersionsTable>;
export type SettingsRow = Selectable<PricingSettingsTable>;
type Db = Kysely<PlatformDatabase>;

/** The settings row, locked: pricing writes on every replica take turns on it. */
export async function lockSettings(trx: Db): Promise<SettingsRow> {
  return trx.selectFrom('pricing_settings').selectAll().where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
}

export async function optOutOfBaselines(trx: Db, at: Date): Promise<void> {
  await trx.updateTable('pricing_settings').set({ baselines_opted_out_at: at }).where('id', '=', 1).where('baselines_opted_out_at', 'is', null).execute();
}

/** Every version, newest first. */
export async function listVersions(db: Db): Promise<VersionRow[]> {
  return db.selectFrom('pricing_versions').selectAll().orderBy('effective_from', 'desc').execute();
}

/** The version in effect at `now` and any later (staged) one, newest first: all a replica needs in memory. */
export async function currentAndStaged(db: Db, now: Date): Promise<VersionRow[]> {
  const inEffect = await db.selectFrom('pricing_versions').selectAll().where('effective_from', '<=', now).orderBy('effective_from', 'desc').limit(1).executeTakeFirst();
  const staged = await db.selectFrom('pricing_versions').selectAll().where('effective_from', '>', now).orderBy('effective_from', 'desc').execute();
  return inEffect ? [...staged, inEffect] : staged;
}

export async function findVersionAt(db: Db, effectiveFrom: Date): Promise<VersionRow | undefined> {
  return db.selectFrom('pricing_versions').selectAll().where('effective_from', '=', effectiveFrom).executeTakeFirst();
}

export async function newestBaselineDate(db: Db): Promise<Date | undefined> {
  const row = await db.selectFrom('pricing_versions').select('effective_from').where('source', '=', 'baseline').orderBy('effective_from', 'desc').limit(1).executeTakeFirst();
  return row?.effective_from;
}

export async function insertVersion(trx: Db, row: VersionRow): Promise<void> {
  await trx
    .insertInto('pricing_versions')
    .values({ ...row, provider_aliases: JSON.stringify(row.provider_aliases), spec: JSON.stringify(row.spec) })
    .execute();
}

export async function deleteVersion(trx: Db, id: string): Promise<void> {
  await trx.deleteFrom('pricing_versions').where('id', '=', id).execute();
}
