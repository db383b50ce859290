import type { Kysely, Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { ClientConfigDirectivesTable, ClientConfigEnvelopesTable } from './tables.js';

export type DirectivesRow = Selectable<ClientConfigDirectivesTable>;
export type EnvelopeRow = Selectable<ClientConfigEnvelopesTable>;

export async function readDirectives(db: Kysely<PlatformDatabase>, options: { lock?: boolean } = {}): Promise<DirectivesRow> {
  let query = db.selectFrom('client_config_directives').selectAll().where('id', '=', 1);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirstOrThrow();
}

export async function writeDirectives(db: Kysely<PlatformDatabase>, row: Omit<DirectivesRow, 'id'>): Promise<void> {
  await db
    .updateTable('client_config_directives')
    .set({ ...row, config: JSON.stringify(row.config) })
    .where('id', '=', 1)
    .execute();
}

export async function newestEnvelope(db: Kysely<PlatformDatabase>): Promise<EnvelopeRow | undefined> {
  return db.selectFrom('client_config_envelopes').selectAll().orderBy('sequence', 'desc').limit(1).executeTakeFirst();
}

export async function insertEnvelope(db: Kysely<PlatformDatabase>, row: Omit<EnvelopeRow, 'sequence'>): Promise<void> {
  await db.insertInto('client_config_envelopes').values(row).execute();
}

/** Kids of envelopes still valid at `now`, for the warning about a key retired too early. */
export async function kidsOfValidEnvelopes(db: Kysely<PlatformDatabase>, now: Date): Promise<string[]> {
  const rows = await db.selectFrom('client_config_envelopes').select('kid').distinct().where('not_after', '>', now).execute();
  return rows.map((row) => row.kid);
}
