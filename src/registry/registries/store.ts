import { sql, type Kysely, type Transaction } from 'kysely';
import type { Claims, CreationType, EntryType, RegistryDatabase } from '../tables.js';

type Db = Kysely<RegistryDatabase> | Transaction<RegistryDatabase>;

export interface RegistryRow {
  name: string;
  claims: Claims;
  creation_type: CreationType;
  created_at: Date;
  updated_at: Date;
  sources: string[];
}

async function withSources(db: Db, rows: Omit<RegistryRow, 'sources'>[]): Promise<RegistryRow[]> {
  if (rows.length === 0) return [];
  const links = await db
    .selectFrom('registry_sources')
    .select(['registry_name', 'source_name'])
    .where(
      'registry_name',
      'in',
      rows.map((row) => row.name),
    )
    .orderBy('position')
    .execute();
  return rows.map((row) => ({ ...row, sources: links.filter((link) => link.registry_name === row.name).map((link) => link.source_name) }));
}

export async function listRegistries(db: Db): Promise<RegistryRow[]> {
  const rows = await db.selectFrom('registries').selectAll().orderBy('name').execute();
  return withSources(db, rows);
}

/** Registries in name order after the name `after`. */
export async function listRegistriesPage(db: Db, page: { after: string | undefined; limit: number }): Promise<RegistryRow[]> {
  let query = db.selectFrom('registries').selectAll().orderBy(sql`name collate "C"`).limit(page.limit);
  if (page.after !== undefined) query = query.where(sql<boolean>`name collate "C" > ${page.after}`);
  return withSources(db, await query.execute());
}

export async function findRegistry(db: Db, name: string): Promise<RegistryRow | undefined> {
  const rows = await db.selectFrom('registries').selectAll().where('name', '=', name).execute();
  return (await withSources(db, rows))[0];
}

export interface RegistryValues {
  name: string;
  claims: Claims;
  sources: string[];
  creationType: CreationType;
}

export async function upsertRegistry(trx: Transaction<RegistryDatabase>, values: RegistryValues, now: Date): Promise<void> {
  await trx
    .insertInto('registries')
    .values({ name: values.name, claims: JSON.stringify(values.claims), creation_type: values.creationType, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ claims: JSON.stringify(values.claims), updated_at: now }))
    .execute();
  await trx.deleteFrom('registry_sources').where('registry_name', '=', values.name).execute();
  if (values.sources.length > 0) {
    await trx
      .insertInto('registry_sources')
      .values(values.sources.map((source, position) => ({ registry_name: values.name, source_name: source, position })))
      .execute();
  }
}

export async function deleteRegistry(trx: Transaction<RegistryDatabase>, name: string): Promise<void> {
  await trx.deleteFrom('registries').where('name', '=', name).execute();
}

export async function existingSourceNames(db: Db, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db.selectFrom('sources').select('name').where('name', 'in', names).execute();
  return new Set(rows.map((row) => row.name));
}

export interface RegistryEntryRow {
  entry_type: EntryType;
  name: string;
  version: string;
  title: string;
  description: string;
  source_name: string;
  position: number;
  claims: Claims;
  created_at: Date;
  updated_at: Date;
}

export type RegistryEntryKey = [position: number, entryType: string, name: string, version: string];

/** Every entry of every source of the registry, shadowed ones included, in source order, after `after`. */
export function listRegistryEntriesPage(db: Db, registryName: string, page: { after: RegistryEntryKey | undefined; limit: number }): Promise<RegistryEntryRow[]> {
  let query = db
    .selectFrom('registry_sources')
    .innerJoin('entries', 'entries.source_name', 'registry_sources.source_name')
    .select([
      'entries.entry_type',
      'entries.name',
      'entries.version',
      'entries.title',
      'entries.description',
      'entries.source_name',
      'registry_sources.position',
      'entries.claims',
      'entries.created_at',
      'entries.updated_at',
    ])
    .where('registry_sources.registry_name', '=', registryName)
    .orderBy('registry_sources.position')
    .orderBy('entries.entry_type')
    .orderBy(sql`entries.name collate "C"`)
    .orderBy(sql`entries.version collate "C"`)
    .limit(page.limit);
  if (page.after) {
    const [position, entryType, name, version] = page.after;
    query = query.where(sql<boolean>`(registry_sources.position, entries.entry_type, entries.name collate "C", entries.version collate "C") > (${position}, ${entryType}, ${name}, ${version})`);
  }
  return query.execute();
}

export interface SourceLink {
  registry_name: string;
  source_name: string;
  position: number;
}

/** Where a source sits in registries, so a source that must be re-created can be put back in place. */
export function linksOfSource(db: Db, sourceName: string): Promise<SourceLink[]> {
  return db.selectFrom('registry_sources').select(['registry_name', 'source_name', 'position']).where('source_name', '=', sourceName).execute();
}

export async function unlinkSource(trx: Transaction<RegistryDatabase>, sourceName: string): Promise<void> {
  await trx.deleteFrom('registry_sources').where('source_name', '=', sourceName).execute();
}

export async function restoreLinks(trx: Transaction<RegistryDatabase>, links: SourceLink[]): Promise<void> {
  if (links.length > 0) await trx.insertInto('registry_sources').values(links).execute();
}
