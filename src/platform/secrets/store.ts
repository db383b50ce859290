import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { Keyset } from '../directory/store.js';
import type { ManagedSecretReferencesTable, ManagedSecretsTable } from './tables.js';

export type SecretRow = Selectable<ManagedSecretsTable>;
export type ReferenceRow = Selectable<ManagedSecretReferencesTable>;
type Db = Kysely<PlatformDatabase>;

export async function findSecret(db: Db, id: string, lock?: 'update' | 'share'): Promise<SecretRow | undefined> {
  const query = db.selectFrom('managed_secrets').selectAll().where('id', '=', id);
  if (lock === 'update') return query.forUpdate().executeTakeFirst();
  if (lock === 'share') return query.forShare().executeTakeFirst();
  return query.executeTakeFirst();
}

export async function nameTaken(db: Db, name: string): Promise<boolean> {
  const row = await db.selectFrom('managed_secrets').select('id').where(sql<boolean>`lower(name) = lower(${name})`).executeTakeFirst();
  return row !== undefined;
}

/** A page by name then id; a `before` page comes in reverse (see directory `inOrder`). */
export async function listSecrets(db: Db, page: Keyset): Promise<SecretRow[]> {
  let query = db.selectFrom('managed_secrets').selectAll();
  if (page.after) query = query.where(sql<boolean>`(name, id) > (${page.after[0]}, ${page.after[1]}::uuid)`);
  if (page.before) query = query.where(sql<boolean>`(name, id) < (${page.before[0]}, ${page.before[1]}::uuid)`);
  const direction = page.before ? 'desc' : 'asc';
  return query.orderBy('name', direction).orderBy('id', direction).limit(page.limit + 1).execute();
}

export async function insertSecret(trx: Db, row: SecretRow): Promise<void> {
  await trx.insertInto('managed_secrets').values({ ...row, sealed: Buffer.from(row.sealed) }).execute();
}

export async function updateSealed(trx: Db, id: string, sealed: Buffer, updatedAt: Date): Promise<void> {
  await trx.updateTable('managed_secrets').set({ sealed, updated_at: updatedAt }).where('id', '=', id).execute();
}

export async function deleteSecret(trx: Db, id: string): Promise<void> {
  await trx.deleteFrom('managed_secrets').where('id', '=', id).execute();
}

export async function referencesTo(db: Db, secretId: string): Promise<ReferenceRow[]> {
  return db.selectFrom('managed_secret_references').selectAll().where('managed_secret_id', '=', secretId).orderBy('owner_name').orderBy('field').execute();
}

export async function deleteReferences(trx: Db, ownerType: string, ownerId: string): Promise<void> {
  await trx.deleteFrom('managed_secret_references').where('owner_type', '=', ownerType).where('owner_id', '=', ownerId).execute();
}

export async function insertReferences(trx: Db, rows: ReferenceRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('managed_secret_references').values(rows).execute();
}
