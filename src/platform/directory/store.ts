import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { GroupsTable, UsersTable } from './tables.js';

export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
type Db = Kysely<PlatformDatabase>;

/** A keyset page request: after or before a `(sort key, id)` position, `limit` rows (one more is read to see the next page). */
export interface Keyset {
  after?: readonly [string, string];
  before?: readonly [string, string];
  limit: number;
}

export interface MemberRow {
  group_id: string;
  type: 'group' | 'user';
  id: string;
  display: string;
}

const TRUE = sql<boolean>`true`;

/** `and`-joins the conditions (true when none). */
const all = (conditions: RawBuilder<boolean>[]): RawBuilder<boolean> => (conditions.length === 0 ? TRUE : sql<boolean>`(${sql.join(conditions, sql` and `)})`);

/** A case-insensitive substring of any of `columns`. */
const contains = (columns: RawBuilder<unknown>[], text: string): RawBuilder<boolean> =>
  sql<boolean>`(${sql.join(columns.map((column) => sql`strpos(lower(coalesce(${column}, '')), lower(${text})) > 0`), sql` or `)})`;

/** The keyset condition, order and limit; rows of a `before` page come in reverse and are turned back by `inOrder`. */
function keyset(key: RawBuilder<unknown>, id: RawBuilder<unknown>, page: Keyset): { where: RawBuilder<boolean>; tail: RawBuilder<unknown> } {
  if (page.before) {
    return { where: sql<boolean>`(${key}, ${id}) < (${page.before[0]}, ${page.before[1]}::uuid)`, tail: sql`order by ${key} desc, ${id} desc limit ${page.limit + 1}` };
  }
  const where = page.after ? sql<boolean>`(${key}, ${id}) > (${page.after[0]}, ${page.after[1]}::uuid)` : TRUE;
  return { where, tail: sql`order by ${key}, ${id} limit ${page.limit + 1}` };
}

/** A page's rows in sort order and whether more rows lie beyond it (in the direction read). */
export function inOrder<T>(rows: T[], page: Keyset): { rows: T[]; more: boolean } {
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  return { rows: page.before ? kept.reverse() : kept, more };
}

const sourceIs = (column: RawBuilder<unknown>, source: string) => (source === 'scim' ? sql<boolean>`${column} like 'scim:%'` : sql<boolean>`${column} = ${source}`);
const same = (column: RawBuilder<unknown>, value: string) => sql<boolean>`lower(${column}) = lower(${value})`;

export interface UserFilter {
  email?: string | undefined;
  user_name?: string | undefined;
  source?: string | undefined;
  active?: boolean | undefined;
  search?: string | undefined;
}

function userConditions(filter: UserFilter, alias = 'users'): RawBuilder<boolean>[] {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const conditions: RawBuilder<boolean>[] = [];
  if (filter.email !== undefined) conditions.push(same(column('email'), filter.email));
  if (filter.user_name !== undefined) conditions.push(same(column('user_name'), filter.user_name));
  if (filter.source !== undefined) conditions.push(sourceIs(column('source'), filter.source));
  if (filter.active !== undefined) conditions.push(sql<boolean>`${column('active')} = ${filter.active}`);
  if (filter.search !== undefined) conditions.push(contains([column('display_name'), column('user_name'), column('email')], filter.search));
  return conditions;
}

export interface GroupFilter {
  name?: string | undefined;
  display_name?: string | undefined;
  source?: string | undefined;
  search?: string | undefined;
}

function groupConditions(filter: GroupFilter, alias = 'groups'): RawBuilder<boolean>[] {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const conditions: RawBuilder<boolean>[] = [];
  if (filter.name !== undefined) conditions.push(same(column('name'), filter.name));
  if (filter.display_name !== undefined) conditions.push(same(column('display_name'), filter.display_name));
  if (filter.source !== undefined) conditions.push(sourceIs(column('source'), filter.source));
  if (filter.search !== undefined) conditions.push(contains([column('name'), column('display_name')], filter.search));
  return conditions;
}

export async function listUsers(db: Db, filter: UserFilter, page: Keyset): Promise<UserRow[]> {
  const { where, tail } = keyset(sql.ref('user_name'), sql.ref('id'), page);
  const result = await sql<UserRow>`select * from users where ${all([...userConditions(filter), where])} ${tail}`.execute(db);
  return result.rows;
}

export async function listGroups(db: Db, filter: GroupFilter, page: Keyset): Promise<GroupRow[]> {
  const { where, tail } = keyset(sql.ref('name'), sql.ref('id'), page);
  const result = await sql<GroupRow>`select * from groups where ${all([...groupConditions(filter), where])} ${tail}`.execute(db);
  return result.rows;
}

/** The groups directly inside `groupId`. */
export async function listChildGroups(db: Db, groupId: string, search: string | undefined, page: Keyset): Promise<GroupRow[]> {
  const { where, tail } = keyset(sql.ref('g.name'), sql.ref('g.id'), page);
  const result = await sql<GroupRow>`
    select g.* from group_members m join groups g on g.id = m.member_id
    where m.group_id = ${groupId} and m.member_type = 'group' and ${all([...groupConditions({ search }, 'g'), where])} ${tail}`.execute(db);
  return result.rows;
}

/** The distinct users of `groupId` and of every group below it. */
export async function listTransitiveUsers(db: Db, groupId: string, filter: UserFilter, page: Keyset): Promise<UserRow[]> {
  const { where, tail } = keyset(sql.ref('u.user_name'), sql.ref('u.id'), page);
  const result = await sql<UserRow>`
    with recursive tree (id) as (
      select ${groupId}::uuid
      union
      select m.member_id from group_members m join tree t on m.group_id = t.id and m.member_type = 'group'
    )
    select u.* from users u
    where u.id in (select m.member_id from group_members m join tree t on m.group_id = t.id and m.member_type = 'user')
      and ${all([...userConditions(filter, 'u'), where])} ${tail}`.execute(db);
  return result.rows;
}

/** The groups a user is in, directly or through nesting. */
export async function listGroupsOfUser(db: Db, userId: string, page: Keyset): Promise<GroupRow[]> {
  const { where, tail } = keyset(sql.ref('g.name'), sql.ref('g.id'), page);
  const result = await sql<GroupRow>`
    with recursive above (id) as (
      select group_id from group_members where member_type = 'user' and member_id = ${userId}
      union
      select m.group_id from group_members m join above a on m.member_type = 'group' and m.member_id = a.id
    )
    select g.* from groups g where g.id in (select id from above) and ${where} ${tail}`.execute(db);
  return result.rows;
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findGroup(db: Db, id: string, options: { lock?: boolean } = {}): Promise<GroupRow | undefined> {
  const query = db.selectFrom('groups').selectAll().where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** The first `limit` direct members of each group: groups then users, by name then id; one query for a whole page. */
export async function firstMembers(db: Db, groupIds: readonly string[], limit: number): Promise<MemberRow[]> {
  if (groupIds.length === 0) return [];
  const result = await sql<MemberRow>`
    select group_id, type, id, display from (
      select m.group_id, m.member_type as type, m.member_id as id, coalesce(g.display_name, u.display_name) as display,
        row_number() over (partition by m.group_id order by m.member_type, coalesce(g.name, u.user_name), m.member_id) as position
      from group_members m
      left join groups g on m.member_type = 'group' and g.id = m.member_id
      left join users u on m.member_type = 'user' and u.id = m.member_id
      where m.group_id in (${sql.join(groupIds.map((id) => sql`${id}::uuid`))})
    ) ranked where position <= ${limit} order by group_id, position`.execute(db);
  return result.rows;
}

/** Distinct users in each group or below it; one recursive query for a whole page. */
export async function transitiveCounts(db: Db, groupIds: readonly string[]): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const result = await sql<{ root: string; count: string | number }>`
    with recursive tree (root, id) as (
      select id, id from groups where id in (${sql.join(groupIds.map((id) => sql`${id}::uuid`))})
      union
      select t.root, m.member_id from tree t join group_members m on m.group_id = t.id and m.member_type = 'group'
    )
    select t.root, count(distinct m.member_id) as count from tree t join group_members m on m.group_id = t.id and m.member_type = 'user'
    group by t.root`.execute(db);
  return new Map(result.rows.map((row) => [row.root, Number(row.count)]));
}

/** Which of `ancestorIds` have `groupId` at or below them: one recursive query for all of them. */
export async function containersOf(db: Db, groupId: string, ancestorIds: readonly string[]): Promise<string[]> {
  if (ancestorIds.length === 0) return [];
  const result = await sql<{ root: string }>`
    with recursive tree (root, id) as (
      select id, id from groups where id in (${sql.join(ancestorIds.map((id) => sql`${id}::uuid`))})
      union
      select t.root, m.member_id from tree t join group_members m on m.group_id = t.id and m.member_type = 'group'
    )
    select distinct root from tree where id = ${groupId}::uuid`.execute(db);
  return result.rows.map((row) => row.root);
}

/** Whether `groupId` is `ancestorId` or lies anywhere below it. */
export async function isWithin(db: Db, groupId: string, ancestorId: string): Promise<boolean> {
  const result = await sql<{ found: boolean }>`
    with recursive tree (id) as (
      select ${ancestorId}::uuid
      union
      select m.member_id from group_members m join tree t on m.group_id = t.id and m.member_type = 'group'
    )
    select exists (select 1 from tree where id = ${groupId}::uuid) as found`.execute(db);
  return result.rows[0]?.found === true;
}

export async function insertGroup(db: Db, group: Omit<GroupRow, 'revision' | 'scim_resource'> & { scim_resource?: string | null }): Promise<void> {
  await db.insertInto('groups').values(group).execute();
}

/** Writes the changed fields and moves the group to its next revision (its ETag changes). */
export async function updateGroup(db: Db, id: string, changes: Partial<Pick<GroupRow, 'name' | 'display_name' | 'description' | 'external_id'>> & { scim_resource?: string | null; updated_at: Date }): Promise<void> {
  await db
    .updateTable('groups')
    .set({ ...changes, revision: sql<number>`revision + 1` })
    .where('id', '=', id)
    .execute();
}

export async function hasMember(db: Db, groupId: string, type: 'group' | 'user', memberId: string): Promise<boolean> {
  const row = await db.selectFrom('group_members').select('group_id').where('group_id', '=', groupId).where('member_type', '=', type).where('member_id', '=', memberId).executeTakeFirst();
  return row !== undefined;
}

export async function insertMembers(db: Db, groupId: string, members: readonly { type: 'group' | 'user'; id: string }[], now: Date): Promise<void> {
  if (members.length === 0) return;
  await db
    .insertInto('group_members')
    .values(members.map((member) => ({ group_id: groupId, member_type: member.type, member_id: member.id, created_at: now })))
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

/** Removes the link; false when there was none. */
export async function deleteMember(db: Db, groupId: string, type: 'group' | 'user', memberId: string): Promise<boolean> {
  const result = await db.deleteFrom('group_members').where('group_id', '=', groupId).where('member_type', '=', type).where('member_id', '=', memberId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Serialises changes to group nesting, so that two concurrent links cannot close a cycle together. */
export async function lockNesting(db: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(7420011)`.execute(db);
}

/** Whether another group of `source` has this name, ignoring case. */
export async function groupNameTaken(db: Db, source: string, name: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('groups').select('id').where('source', '=', source).where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}
