import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { Keyset } from '../directory/store.js';
import type { ConnectorIdentityProvidersTable } from './tables.js';

export type ProviderRow = Selectable<ConnectorIdentityProvidersTable>;
type Db = Kysely<PlatformDatabase>;

export async function findProvider(db: Db, id: string, options: { lock?: boolean } = {}): Promise<ProviderRow | undefined> {
  const query = db.selectFrom('connector_identity_providers').selectAll().where('id', '=', id);
  return options.lock ? query.forUpdate().executeTakeFirst() : query.executeTakeFirst();
}

/** Another provider (than `exceptId`) with this name, ignoring case. */
export async function nameTaken(db: Db, name: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('connector_identity_providers').select('id').where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** A page by name then id; a `before` page comes in reverse (see directory `inOrder`). */
export async function listProviders(db: Db, page: Keyset): Promise<ProviderRow[]> {
  let query = db.selectFrom('connector_identity_providers').selectAll();
  if (page.after) query = query.where(sql<boolean>`(name, id) > (${page.after[0]}, ${page.after[1]}::uuid)`);
  if (page.before) query = query.where(sql<boolean>`(name, id) < (${page.before[0]}, ${page.before[1]}::uuid)`);
  const direction = page.before ? 'desc' : 'asc';
  return query.orderBy('name', direction).orderBy('id', direction).limit(page.limit + 1).execute();
}

export async function insertProvider(trx: Db, row: ProviderRow): Promise<void> {
  await trx.insertInto('connector_identity_providers').values({ ...row, config: JSON.stringify(row.config) }).execute();
}

export async function updateProvider(trx: Db, row: ProviderRow): Promise<void> {
  await trx
    .updateTable('connector_identity_providers')
    .set({ name: row.name, provider_type: row.provider_type, config: JSON.stringify(row.config), updated_at: row.updated_at })
    .where('id', '=', row.id)
    .execute();
}

export async function deleteProvider(trx: Db, id: string): Promise<void> {
  await trx.deleteFrom('connector_identity_providers').where('id', '=', id).execute();
}
