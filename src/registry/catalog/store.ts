import type { Kysely } from 'kysely';
import type { RegistryDatabase } from '../tables.js';
import type { StoredEntry } from './entry-view.js';

type Db = Kysely<RegistryDatabase>;

/** The catalog's generation: every write that changes what consumers see raises it. */
export async function catalogGeneration(db: Db): Promise<number> {
  return (await db.selectFrom('catalog_state').select('generation').where('id', '=', 1).executeTakeFirstOrThrow()).generation;
}

/** Every source with its claims and the generation of its entries. */
export function listSourceGenerations(db: Db) {
  return db.selectFrom('sources').select(['name', 'claims', 'entries_generation']).execute();
}

/** Every registry with its claims and its sources in order of precedence. */
export async function listRegistryDefinitions(db: Db) {
  const links = await db.selectFrom('registry_sources').select(['registry_name', 'source_name']).orderBy('registry_name').orderBy('position').execute();
  const rows = await db.selectFrom('registries').select(['name', 'claims']).execute();
  const registries = new Map(rows.map((row) => [row.name, { name: row.name, claims: row.claims, sources: [] as string[] }]));
  for (const link of links) registries.get(link.registry_name)?.sources.push(link.source_name);
  return registries;
}

/** Every entry version of a source. */
export function listSourceEntryRows(db: Db, sourceName: string): Promise<StoredEntry[]> {
  return db
    .selectFrom('entries')
    .select([
      'source_name',
      'entry_type',
      'name',
      'version',
      'status',
      'status_message',
      'title',
      'description',
      'claims',
      'body',
      'published_at',
      'updated_at',
      'status_changed_at',
      'created_at',
    ])
    .where('source_name', '=', sourceName)
    .execute();
}
