import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Claims, CreationType, EntryType, FilterConfig, RegistryDatabase, SourceKind, SourcesTable, SourceSyncTable } from '../tables.js';

export type SourceRow = Selectable<SourcesTable> & Omit<Selectable<SourceSyncTable>, 'source_name'>;

type Db = Kysely<RegistryDatabase> | Transaction<RegistryDatabase>;

const SOURCE_COLUMNS = [
  'sources.name',
  'sources.kind',
  'sources.config',
  'sources.filter',
  'sources.claims',
  'sources.sync_interval_ms',
  'sources.sync_schedule',
  'sources.creation_type',
  'sources.entries_generation',
  'sources.created_at',
  'sources.updated_at',
  'source_sync.phase',
  'source_sync.last_attempt',
  'source_sync.last_sync_time',
  'source_sync.attempt_count',
  'source_sync.message',
  'source_sync.server_count',
  'source_sync.skill_count',
  'source_sync.plugin_count',
  'source_sync.content_hash',
  'source_sync.next_sync_at',
  'source_sync.sync_requested_at',
  'source_sync.lease_owner',
  'source_sync.lease_until',
] as const;

function sourcesQuery(db: Db) {
  return db.selectFrom('sources').innerJoin('source_sync', 'source_sync.source_name', 'sources.name').select(SOURCE_COLUMNS);
}

export function listSources(db: Db): Promise<SourceRow[]> {
  return sourcesQuery(db).orderBy('sources.name').execute();
}

/** Sources in name order after the name `after`; byte order, as names are compared in cursors. */
export function listSourcesPage(db: Db, page: { after: string | undefined; limit: number }): Promise<SourceRow[]> {
  let query = sourcesQuery(db).orderBy(sql`sources.name collate "C"`).limit(page.limit);
  if (page.after !== undefined) query = query.where(sql<boolean>`sources.name collate "C" > ${page.after}`);
  return query.execute();
}

export function findSource(db: Db, name: string): Promise<SourceRow | undefined> {
  return sourcesQuery(db).where('sources.name', '=', name).executeTakeFirst();
}

export function findManagedSource(db: Db): Promise<SourceRow | undefined> {
  return sourcesQuery(db).where('sources.kind', '=', 'managed').executeTakeFirst();
}

export interface SourceValues {
  name: string;
  kind: SourceKind;
  config: Record<string, unknown>;
  filter: FilterConfig;
  claims: Claims;
  syncIntervalMs: number | null;
  syncSchedule: string;
  creationType: CreationType;
}

export async function insertSource(trx: Transaction<RegistryDatabase>, values: SourceValues, now: Date): Promise<void> {
  await trx
    .insertInto('sources')
    .values({
      name: values.name,
      kind: values.kind,
      config: JSON.stringify(values.config),
      filter: JSON.stringify(values.filter),
      claims: JSON.stringify(values.claims),
      sync_interval_ms: values.syncIntervalMs,
      sync_schedule: values.syncSchedule,
      creation_type: values.creationType,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const synced = values.syncIntervalMs !== null;
  await trx
    .insertInto('source_sync')
    .values({
      source_name: values.name,
      phase: synced ? 'syncing' : 'complete',
      message: synced ? 'waiting for the first sync' : '',
      next_sync_at: synced ? now : null,
      sync_requested_at: synced ? now : null,
      last_attempt: null,
      last_sync_time: null,
      content_hash: null,
      lease_owner: null,
      lease_until: null,
    })
    .execute();
}

/**
 * Replaces a source's definition; a synced source is synced again at once so the change shows. Its
 * entries take the new claims in the same transaction: narrowing who may see them must not wait for
 * a sync that may fail.
 */
export async function updateSource(trx: Transaction<RegistryDatabase>, values: SourceValues, now: Date): Promise<void> {
  const synced = values.syncIntervalMs !== null;
  if (synced) await trx.updateTable('entries').set({ claims: JSON.stringify(values.claims) }).where('source_name', '=', values.name).execute();
  await trx
    .updateTable('sources')
    .set({
      ...(synced && { entries_generation: sql<number>`entries_generation + 1` }),
      config: JSON.stringify(values.config),
      filter: JSON.stringify(values.filter),
      claims: JSON.stringify(values.claims),
      sync_interval_ms: values.syncIntervalMs,
      sync_schedule: values.syncSchedule,
      updated_at: now,
    })
    .where('name', '=', values.name)
    .execute();
  if (synced) {
    await trx.updateTable('source_sync').set({ next_sync_at: now, sync_requested_at: now }).where('source_name', '=', values.name).execute();
  }
}

export async function deleteSource(trx: Transaction<RegistryDatabase>, name: string): Promise<void> {
  await trx.deleteFrom('sources').where('name', '=', name).execute();
}

export async function registriesUsingSource(db: Db, name: string): Promise<string[]> {
  const rows = await db.selectFrom('registry_sources').select('registry_name').where('source_name', '=', name).orderBy('registry_name').execute();
  return rows.map((row) => row.registry_name);
}

export interface SourceEntryRow {
  entry_type: EntryType;
  name: string;
  version: string;
  title: string;
  description: string;
  claims: Claims;
  created_at: Date;
  updated_at: Date;
}

export type EntryKey = [entryType: string, name: string];

/**
 * The versions of up to `limit` entries (type and name) of a source, after the entry `after`, so that
 * an entry's versions are never split over two pages; `more` says whether entries follow.
 */
export async function listSourceEntriesPage(db: Db, sourceName: string, page: { after: EntryKey | undefined; limit: number }): Promise<{ rows: SourceEntryRow[]; more: boolean }> {
  let keys = db
    .selectFrom('entries')
    .select(['entry_type', 'name'])
    .where('source_name', '=', sourceName)
    .groupBy(['entry_type', 'name'])
    .orderBy('entry_type')
    .orderBy(sql`name collate "C"`)
    .limit(page.limit + 1);
  if (page.after) keys = keys.where(sql<boolean>`(entry_type, name collate "C") > (${page.after[0]}, ${page.after[1]})`);
  const found = await keys.execute();
  const first = found[0];
  const last = found[Math.min(page.limit, found.length) - 1];
  if (!first || !last) return { rows: [], more: false };
  const rows = await db
    .selectFrom('entries')
    .select(['entry_type', 'name', 'version', 'title', 'description', 'claims', 'created_at', 'updated_at'])
    .where('source_name', '=', sourceName)
    .where(sql<boolean>`(entry_type, name collate "C") >= (${first.entry_type}, ${first.name})`)
    .where(sql<boolean>`(entry_type, name collate "C") <= (${last.entry_type}, ${last.name})`)
    .orderBy('entry_type')
    .orderBy(sql`name collate "C"`)
    .orderBy(sql`version collate "C"`)
    .execute();
  return { rows, more: found.length > page.limit };
}
