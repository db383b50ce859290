import { sql, type Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { GroupRow, UserRow } from '../directory/store.js';

type Db = Kysely<PlatformDatabase>;

export interface Equality {
  attribute: 'id' | 'userName' | 'externalId' | 'displayName';
  value: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A provisioner's users in SCIM order (created, then id), narrowed by one indexed equality when the filter is one. */
export async function listScimUsers(db: Db, source: string, equality?: Equality): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll().where('source', '=', source);
  if (equality?.attribute === 'id') {
    if (!UUID.test(equality.value)) return [];
    query = query.where('id', '=', equality.value);
  }
  if (equality?.attribute === 'userName') query = query.where(sql<boolean>`lower(user_name) = lower(${equality.value})`);
  if (equality?.attribute === 'externalId') query = query.where(sql<boolean>`scim_resource is not null and scim_resource->>'externalId' = ${equality.value}`);
  return query.orderBy('created_at').orderBy('id').execute();
}

export async function listScimGroups(db: Db, source: string, equality?: Equality): Promise<GroupRow[]> {
  let query = db.selectFrom('groups').selectAll().where('source', '=', source);
  if (equality?.attribute === 'id') {
    if (!UUID.test(equality.value)) return [];
    query = query.where('id', '=', equality.value);
  }
  if (equality?.attribute === 'displayName') query = query.where(sql<boolean>`lower(name) = lower(${equality.value})`);
  if (equality?.attribute === 'externalId') query = query.where('external_id', '=', equality.value);
  return query.orderBy('created_at').orderBy('id').execute();
}

export async function findScimUser(db: Db, source: string, id: string, options: { lock?: boolean } = {}): Promise<UserRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const query = db.selectFrom('users').selectAll().where('source', '=', source).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findScimGroup(db: Db, source: string, id: string, options: { lock?: boolean } = {}): Promise<GroupRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const query = db.selectFrom('groups').selectAll().where('source', '=', source).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Each user's direct groups, for the read-only `groups` attribute; one query for a whole list. */
export async function directGroupsOf(db: Db, userIds: readonly string[]): Promise<{ user_id: string; id: string; display: string }[]> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('group_members')
    .innerJoin('groups', 'groups.id', 'group_members.group_id')
    .select(['group_members.member_id as user_id', 'groups.id as id', 'groups.display_name as display'])
    .where('group_members.member_type', '=', 'user')
    .where('group_members.member_id', 'in', userIds)
    .orderBy('groups.name')
    .orderBy('groups.id')
    .execute();
}

/** Each group's direct members; one query for a whole list. */
export async function membersOf(db: Db, groupIds: readonly string[]): Promise<{ group_id: string; type: 'user' | 'group'; id: string; display: string }[]> {
  if (groupIds.length === 0) return [];
  const result = await sql<{ group_id: string; type: 'user' | 'group'; id: string; display: string }>`
    select m.group_id, m.member_type as type, m.member_id as id, coalesce(g.display_name, u.display_name, '') as display
    from group_members m
    left join groups g on m.member_type = 'group' and g.id = m.member_id
    left join users u on m.member_type = 'user' and u.id = m.member_id
    where m.group_id in (${sql.join(groupIds.map((id) => sql`${id}::uuid`))})
    order by m.group_id, m.member_type, m.created_at, m.member_id`.execute(db);
  return result.rows;
}

/** Which of `ids` are users and which groups of `source`. */
export async function kindsOf(db: Db, source: string, ids: readonly string[]): Promise<Map<string, 'user' | 'group'>> {
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return new Map();
  const list = sql.join(valid.map((id) => sql`${id}::uuid`));
  const result = await sql<{ id: string; kind: 'user' | 'group' }>`
    select id, 'user' as kind from users where source = ${source} and id in (${list})
    union all
    select id, 'group' as kind from groups where source = ${source} and id in (${list})`.execute(db);
  return new Map(result.rows.map((row) => [row.id, row.kind]));
}

/** The user an external id of an issuer names (a primary-key look-up: the common answer is none). */
export async function identityOwner(db: Db, issuer: string, externalId: string): Promise<string | undefined> {
  const row = await db.selectFrom('user_identities').select('user_id').where('issuer', '=', issuer).where('external_id', '=', externalId).executeTakeFirst();
  return row?.user_id;
}

/**
 * Makes `externalId` the user's one binding for `issuer` (an earlier value is dropped; `fresh`: the user
 * has none yet). False when the value already binds another user.
 */
export async function rebindIdentity(db: Db, issuer: string, userId: string, externalId: string | undefined, options: { fresh: boolean }): Promise<boolean> {
  if (!options.fresh) {
    let remove = db.deleteFrom('user_identities').where('issuer', '=', issuer).where('user_id', '=', userId);
    if (externalId !== undefined) remove = remove.where('external_id', '!=', externalId);
    await remove.execute();
  }
  if (externalId === undefined) return true;
  const inserted = await db
    .insertInto('user_identities')
    .values({ issuer, external_id: externalId, user_id: userId })
    .onConflict((conflict) => conflict.doNothing())
    .returning('user_id')
    .executeTakeFirst();
  if (inserted) return true;
  const owner = await db.selectFrom('user_identities').select('user_id').where('issuer', '=', issuer).where('external_id', '=', externalId).executeTakeFirst();
  return owner?.user_id === userId;
}

export async function upsertUser(db: Db, row: Omit<UserRow, 'revision' | 'scim_resource'> & { scim_resource: string }, existing: boolean): Promise<void> {
  if (!existing) {
    await db.insertInto('users').values(row).execute();
    return;
  }
  const { id, ...changes } = row;
  await db
    .updateTable('users')
    .set({ ...changes, revision: sql<number>`revision + 1` })
    .where('id', '=', id)
    .execute();
}

export async function deleteMembers(db: Db, groupId: string, members: readonly { type: 'user' | 'group'; id: string }[]): Promise<void> {
  for (const type of ['user', 'group'] as const) {
    const ids = members.filter((member) => member.type === type).map((member) => member.id);
    if (ids.length > 0) await db.deleteFrom('group_members').where('group_id', '=', groupId).where('member_type', '=', type).where('member_id', 'in', ids).execute();
  }
}
