import { sql, type Kysely, type Transaction } from 'kysely';
import type { Claims, EntryType, RegistryDatabase } from '../tables.js';
import type { IngestRecord } from '../sources/providers/records.js';
import { createHash } from 'node:crypto';

type Db = Kysely<RegistryDatabase> | Transaction<RegistryDatabase>;

export interface EntryNameRow {
  version: string;
  claims: Claims;
}

/**
 * Versions of one entry name in a source, with the name locked so two publishers of it serialize. Row
 * locks alone cannot do it: the first version has no row to lock yet, and two first versions with
 * different claims would both get in. The advisory lock covers the name whether it has rows or not.
 */
export async function lockEntryVersions(trx: Transaction<RegistryDatabase>, sourceName: string, type: EntryType, name: string): Promise<EntryNameRow[]> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${JSON.stringify([sourceName, type, name])}, 0))`.execute(trx);
  return findEntryVersions(trx, sourceName, type, name);
}

export function findEntryVersions(db: Db, sourceName: string, type: EntryType, name: string): Promise<EntryNameRow[]> {
  return db
    .selectFrom('entries')
    .select(['version', 'claims'])
    .where('source_name', '=', sourceName)
    .where('entry_type', '=', type)
    .where('name', '=', name)
    .orderBy('id')
    .execute();
}

export async function insertEntry(trx: Transaction<RegistryDatabase>, sourceName: string, record: IngestRecord, claims: Claims, now: Date): Promise<void> {
  await trx
    .insertInto('entries')
    .values({
      source_name: sourceName,
      entry_type: record.entryType,
      name: record.name,
      version: record.version,
      status: record.status,
      status_message: record.statusMessage,
      title: record.title,
      description: record.description,
      claims: JSON.stringify(claims),
      body: record.body,
      hash: createHash('sha256').update(record.body).digest('hex'),
      published_at: now,
      updated_at: now,
      status_changed_at: now,
      created_at: now,
    })
    .execute();
}

export async function deleteEntryVersion(trx: Transaction<RegistryDatabase>, sourceName: string, type: EntryType, name: string, version: string): Promise<boolean> {
  const result = await trx
    .deleteFrom('entries')
    .where('source_name', '=', sourceName)
    .where('entry_type', '=', type)
    .where('name', '=', name)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function setEntryClaims(trx: Transaction<RegistryDatabase>, sourceName: string, type: EntryType, name: string, claims: Claims, now: Date): Promise<void> {
  await trx
    .updateTable('entries')
    .set({ claims: JSON.stringify(claims), updated_at: now })
    .where('source_name', '=', sourceName)
    .where('entry_type', '=', type)
    .where('name', '=', name)
    .execute();
}

/** Keeps a managed source's counts equal to what it holds, in the same transaction as the change. */
export async function recountSource(trx: Transaction<RegistryDatabase>, sourceName: string, now: Date): Promise<void> {
  const counts = await trx
    .selectFrom('entries')
    .select([
      sql<number>`count(*) filter (where entry_type = 'server')::int`.as('servers'),
      sql<number>`count(*) filter (where entry_type = 'skill')::int`.as('skills'),
      sql<number>`count(*) filter (where entry_type = 'plugin')::int`.as('plugins'),
    ])
    .where('source_name', '=', sourceName)
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('source_sync')
    .set({ server_count: counts.servers, skill_count: counts.skills, plugin_count: counts.plugins, last_sync_time: now })
    .where('source_name', '=', sourceName)
    .execute();
}
