import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../../core/errors.js';
import type { Ids } from '../../core/ids.js';
import type { AuditTrail } from '../audit/service.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import type { Actor } from '../identity/actor.js';
import { linkMember } from './operations/link-member.js';
import { unlinkMember } from './operations/unlink-member.js';
import { cursorsOf, keysetOf } from './paging.js';
import { etagOf, presentGroup, presentGroups, presentUser } from './present.js';
import type { CreateGroupBody, Group, ListGroupsQuery, ListUsersQuery, Members, MembersQuery, Page, PageQuery, PatchGroupBody, User } from './schemas.js';
import * as store from './store.js';

export interface VersionedGroup {
  group: Group;
  etag: string;
}

export interface DirectoryService {
  getUser(actor: Actor, id: string): Promise<User>;
  listUsers(actor: Actor, query: ListUsersQuery): Promise<Page<User>>;
  groupsOfUser(actor: Actor, id: string, query: PageQuery): Promise<Page<Group>>;
  getGroup(actor: Actor, id: string): Promise<VersionedGroup>;
  listGroups(actor: Actor, query: ListGroupsQuery): Promise<Page<Group>>;
  members(actor: Actor, id: string, query: MembersQuery): Promise<Members>;
  createGroup(actor: Actor, body: CreateGroupBody): Promise<VersionedGroup>;
  patchGroup(actor: Actor, id: string, body: PatchGroupBody, ifMatch: string | undefined): Promise<VersionedGroup>;
  addMember(actor: Actor, groupId: string, type: 'group' | 'user', memberId: string): Promise<VersionedGroup>;
  removeMember(actor: Actor, groupId: string, type: 'group' | 'user', memberId: string): Promise<VersionedGroup>;
}

export interface DirectoryServiceOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  audit: AuditTrail;
  changes: ChangeFeed;
}

const userKey = (row: store.UserRow): [string, string] => [row.user_name, row.id];
const groupKey = (row: store.GroupRow): [string, string] => [row.name, row.id];

/** `If-Match`: `*` or a list of entity tags (weak ones compared weakly, as a client may send either). */
export function matches(ifMatch: string, etag: string): boolean {
  const bare = etag.replace(/^W\//, '');
  return ifMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === bare;
  });
}

/** The audit's "before" of a member write: the group's fields; the action and the "after" name the member. */
const groupFields = (row: store.GroupRow) => ({ id: row.id, name: row.name, display_name: row.display_name, description: row.description, source: row.source, updated_at: row.updated_at.toISOString() });

const uniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

export function createDirectoryService(options: DirectoryServiceOptions): DirectoryService {
  const { db, clock, ids, audit, changes } = options;

  const versioned = async (executor: Kysely<PlatformDatabase>, id: string): Promise<VersionedGroup> => {
    const row = await store.findGroup(executor, id);
    if (!row) throw new NotFoundError(`no group with id ${id}`);
    return { group: await presentGroup(executor, row), etag: etagOf(row) };
  };

  const memberWrite = (action: 'add' | 'remove') => async (actor: Actor, groupId: string, type: 'group' | 'user', memberId: string) =>
    db.transaction().execute(async (trx) => {
      const link = { groupId, type, memberId, now: clock.now() };
      const before = action === 'add' ? await linkMember(trx, link) : await unlinkMember(trx, link);
      const after = await versioned(trx, groupId);
      await audit.record(trx, { actor, action: `group.${type === 'group' ? 'subgroup' : 'user'}.${action}`, targetType: 'group', targetId: groupId, before: groupFields(before), after: after.group });
      await changes.publish(trx as never, TOPICS.groups);
      return after;
    });

  return {
    async getUser(_actor, id) {
      const row = await store.findUser(db, id);
      if (!row) throw new NotFoundError(`no user with id ${id}`);
      return presentUser(row);
    },
    async listUsers(_actor, query) {
      const page = keysetOf({ list: 'users', ...query });
      const { rows, more } = store.inOrder(await store.listUsers(db, query, page), page);
      const cursors = cursorsOf('users', rows, page, more, userKey);
      return { items: rows.map(presentUser), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },
    async groupsOfUser(_actor, id, query) {
      if (!(await store.findUser(db, id))) throw new NotFoundError(`no user with id ${id}`);
      const page = keysetOf({ list: 'user-groups', ...query });
      const { rows, more } = store.inOrder(await store.listGroupsOfUser(db, id, page), page);
      const cursors = cursorsOf('user-groups', rows, page, more, groupKey);
      return { items: await presentGroups(db, rows), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },
    getGroup: (_actor, id) => versioned(db, id),
    async listGroups(_actor, query) {
      const page = keysetOf({ list: 'groups', ...query });
      const { rows, more } = store.inOrder(await store.listGroups(db, query, page), page);
      const cursors = cursorsOf('groups', rows, page, more, groupKey);
      return { items: await presentGroups(db, rows), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },
    async members(_actor, id, query) {
      const groupsPage = keysetOf({ list: 'members.groups', cursor: query.groups_cursor, before: query.groups_before, limit: query.limit, names: { cursor: 'groups_cursor', before: 'groups_before' } });
      const usersPage = keysetOf({ list: 'members.users', cursor: query.users_cursor, before: query.users_before, limit: query.limit, names: { cursor: 'users_cursor', before: 'users_before' } });
      if (!(await store.findGroup(db, id))) throw new NotFoundError(`no group with id ${id}`);
      const groups = store.inOrder(await store.listChildGroups(db, id, query.search, groupsPage), groupsPage);
      const users = store.inOrder(await store.listTransitiveUsers(db, id, { active: query.active, search: query.search }, usersPage), usersPage);
      const groupCursors = cursorsOf('members.groups', groups.rows, groupsPage, groups.more, groupKey);
      const userCursors = cursorsOf('members.users', users.rows, usersPage, users.more, userKey);
      return {
        direct_child_groups: await presentGroups(db, groups.rows),
        transitive_users: users.rows.map(presentUser),
        ...(groupCursors.next && { next_groups_cursor: groupCursors.next }),
        ...(groupCursors.prev && { prev_groups_cursor: groupCursors.prev }),
        ...(userCursors.next && { next_users_cursor: userCursors.next }),
        ...(userCursors.prev && { prev_users_cursor: userCursors.prev }),
      };
    },
    async createGroup(actor, body) {
      const now = clock.now();
      const row = { id: ids.uuid(), name: body.name, display_name: body.display_name ?? body.name, description: body.description ?? '', source: 'local', external_id: null, created_at: now, updated_at: now };
      try {
        return await db.transaction().execute(async (trx) => {
          if (await store.groupNameTaken(trx, 'local', body.name)) throw new ConflictError(`a group named "${body.name}" already exists (names are unique ignoring case)`);
          await store.insertGroup(trx, row);
          const created = await versioned(trx, row.id);
          await audit.record(trx, { actor, action: 'group.create', targetType: 'group', targetId: row.id, after: created.group });
          await changes.publish(trx as never, TOPICS.groups);
          return created;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw new ConflictError(`a group named "${body.name}" already exists (names are unique ignoring case)`);
        throw error;
      }
    },
    async patchGroup(actor, id, body, ifMatch) {
      try {
        return await db.transaction().execute(async (trx) => {
          const row = await store.findGroup(trx, id, { lock: true });
          if (!row) throw new NotFoundError(`no group with id ${id}`);
          const current = etagOf(row);
          if (ifMatch !== undefined && !matches(ifMatch, current)) throw new PreconditionFailedError('If-Match: the group changed since you read it; GET it again', { etag: current });
          if (row.source.startsWith('scim:')) {
            throw new ConflictError(`group "${row.name}" is provisioned by the SCIM provisioner "${row.source.slice('scim:'.length)}" and is read-only here; change it in the identity provider`);
          }
          if (body.name !== undefined && (await store.groupNameTaken(trx, row.source, body.name, row.id))) {
            throw new ConflictError(`a group named "${body.name}" already exists (names are unique ignoring case)`);
          }
          const before = await presentGroup(trx, row);
          await store.updateGroup(trx, id, { ...body, updated_at: clock.now() });
          const after = await versioned(trx, id);
          await audit.record(trx, { actor, action: 'group.update', targetType: 'group', targetId: id, before, after: after.group });
          await changes.publish(trx as never, TOPICS.groups);
          return after;
        });
      } catch (error) {
        if (uniqueViolation(error)) throw new ConflictError(`a group named "${body.name ?? ''}" already exists (names are unique ignoring case)`);
        throw error;
      }
    },
    addMember: memberWrite('add'),
    removeMember: memberWrite('remove'),
  };
}
