import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { ConnectionsTable } from './tables.js';

export type ConnectionRow = Selectable<ConnectionsTable>;
type Db = Kysely<PlatformDatabase>;

/** A page position by `created_at` then id; a `before` page comes in reverse (see directory `inOrder`). */
export interface TimeKeyset {
  after?: readonly [Date, string];
  before?: readonly [Date, string];
  limit: number;
}

export async function findConnection(db: Db, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserConnection(db: Db, userId: string, connectorId: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('connections').selectAll().where('user_id', '=', userId).where('connector_id', '=', connectorId).executeTakeFirst();
}

/**
 * The user's connection to the connector, locked for the rest of the transaction; while there is none, the
 * pair is locked all the same (an advisory lock), so two writers checking the same precondition take turns.
 */
export async function lockUserConnection(db: Db, userId: string, connectorId: string): Promise<ConnectionRow | undefined> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`connection:${userId}/${connectorId}`}, 0))`.execute(db);
  return db.selectFrom('connections').selectAll().where('user_id', '=', userId).where('connector_id', '=', connectorId).forUpdate().executeTakeFirst();
}

/** A page of one connector's (or one user's) connections by `created_at`, then id. */
export async function listConnections(db: Db, by: { connectorId: string } | { userId: string }, page: TimeKeyset): Promise<ConnectionRow[]> {
  let query = db.selectFrom('connections').selectAll();
  query = 'connectorId' in by ? query.where('connector_id', '=', by.connectorId) : query.where('user_id', '=', by.userId);
  if (page.after) query = query.where(sql<boolean>`(created_at, id) > (${page.after[0]}, ${page.after[1]}::uuid)`);
  if (page.before) query = query.where(sql<boolean>`(created_at, id) < (${page.before[0]}, ${page.before[1]}::uuid)`);
  const direction = page.before ? 'desc' : 'asc';
  return query.orderBy('created_at', direction).orderBy('id', direction).limit(page.limit + 1).execute();
}

/** False when the user already has a connection to the connector. */
export async function insertConnection(db: Db, row: ConnectionRow): Promise<boolean> {
  const result = await db
    .insertInto('connections')
    .values({ ...row, tools_exception_list: JSON.stringify(row.tools_exception_list) })
    .onConflict((conflict) => conflict.columns(['user_id', 'connector_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Creates the user's connection with the defaults and `enabled`, or sets `enabled` on the one there is. */
export async function upsertEnabled(db: Db, row: ConnectionRow): Promise<ConnectionRow> {
  return db
    .insertInto('connections')
    .values({ ...row, tools_exception_list: JSON.stringify(row.tools_exception_list) })
    .onConflict((conflict) => conflict.columns(['user_id', 'connector_id']).doUpdateSet({ enabled: row.enabled, updated_at: row.updated_at }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateConnection(db: Db, id: string, fields: { enabled?: boolean; tools_enabled_by_default?: boolean; tools_exception_list?: string[]; updated_at: Date }): Promise<ConnectionRow | undefined> {
  const { tools_exception_list: list, ...rest } = fields;
  return db
    .updateTable('connections')
    .set({ ...rest, ...(list !== undefined && { tools_exception_list: JSON.stringify(list) }) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteConnection(db: Db, id: string): Promise<void> {
  await db.deleteFrom('connections').where('id', '=', id).execute();
}

export async function deleteUserConnection(db: Db, userId: string, connectorId: string): Promise<boolean> {
  const result = await db.deleteFrom('connections').where('user_id', '=', userId).where('connector_id', '=', connectorId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteConnectionsOfUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('connections').where('user_id', '=', userId).execute();
}
