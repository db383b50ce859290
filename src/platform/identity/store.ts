import { sql, type Kysely, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { UsersTable } from '../directory/tables.js';

export type UserRow = Selectable<UsersTable>;

export async function findUserByIdentity(db: Kysely<PlatformDatabase>, issuer: string, externalId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('user_identities')
    .innerJoin('users', 'users.id', 'user_identities.user_id')
    .selectAll('users')
    .where('user_identities.issuer', '=', issuer)
    .where('user_identities.external_id', '=', externalId)
    .executeTakeFirst();
}

export async function findUser(db: Kysely<PlatformDatabase>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertUser(db: Kysely<PlatformDatabase>, user: Omit<UserRow, 'revision' | 'scim_resource'> & { scim_resource?: string | null }): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/** Binds an external id to a user; false when the binding already exists (another request made it first). */
export async function insertIdentity(db: Kysely<PlatformDatabase>, issuer: string, externalId: string, userId: string): Promise<boolean> {
  const result = await db
    .insertInto('user_identities')
    .values({ issuer, external_id: externalId, user_id: userId })
    .onConflict((conflict) => conflict.columns(['issuer', 'external_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The user's direct groups and every group above them, by id. */
export async function groupIdsOfUser(db: Kysely<PlatformDatabase>, userId: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    with recursive above (id) as (
      select group_id from group_members where member_type = 'user' and member_id = ${userId}
      union
      select m.group_id from group_members m join above a on m.member_type = 'group' and m.member_id = a.id
    )
    select id from above order by id`.execute(db);
  return result.rows.map((row) => row.id);
}

/** The user's direct groups and every group above them, with their names, by id. */
export async function groupsOfUser(db: Kysely<PlatformDatabase>, userId: string): Promise<{ id: string; name: string }[]> {
  const result = await sql<{ id: string; name: string }>`
    with recursive above (id) as (
      select group_id from group_members where member_type = 'user' and member_id = ${userId}
      union
      select m.group_id from group_members m join above a on m.member_type = 'group' and m.member_id = a.id
    )
    select g.id, g.name from above a join groups g on g.id = a.id order by g.id`.execute(db);
  return result.rows;
}
