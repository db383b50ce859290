import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';

export interface GraphUser {
  id: string;
  user_name: string;
  email: string;
  /** Direct groups. */
  groupIds: string[];
}

export interface GraphGroup {
  id: string;
  name: string;
  /** The groups it is a direct member of. */
  parentIds: string[];
}

export interface DirectoryGraph {
  /** Undefined for a user not (or no longer) in the directory. */
  user(userId: string): Promise<GraphUser | undefined>;
  /** The groups above a user: its direct groups and every ancestor, each once. */
  groupsAbove(user: GraphUser): Promise<GraphGroup[]>;
  /** Forgets users (a user changed) or everything (a group or membership changed). */
  forget(what: 'users' | 'all'): void;
}

/** Past this many remembered users the memory starts over (it only saves database reads). */
const MAX_REMEMBERED_USERS = 100_000;

/**
 * The directory as the decisions need it, in memory: every group with its parents (loaded whole, as groups
 * are few next to users), and each user asked about with its direct groups. Loads are shared by concurrent
 * callers; a forget drops them, so a load that started before a change serves only the decisions that
 * asked before it.
 */
export function createDirectoryGraph(db: Kysely<PlatformDatabase>): DirectoryGraph {
  let groups: Promise<Map<string, GraphGroup>> | undefined;
  const users = new Map<string, Promise<GraphUser | undefined>>();

  const loadGroups = async (): Promise<Map<string, GraphGroup>> => {
    const [rows, links] = await Promise.all([
      db.selectFrom('groups').select(['id', 'name']).execute(),
      db.selectFrom('group_members').select(['group_id', 'member_id']).where('member_type', '=', 'group').execute(),
    ]);
    const byId = new Map(rows.map((row) => [row.id, { id: row.id, name: row.name, parentIds: [] as string[] }]));
    for (const link of links) byId.get(link.member_id)?.parentIds.push(link.group_id);
    return byId;
  };

  const loadUser = async (userId: string): Promise<GraphUser | undefined> => {
    const [row, memberships] = await Promise.all([
      db.selectFrom('users').select(['id', 'user_name', 'email']).where('id', '=', userId).executeTakeFirst(),
      db.selectFrom('group_members').select('group_id').where('member_type', '=', 'user').where('member_id', '=', userId).execute(),
    ]);
    if (!row) return undefined;
    return { id: row.id, user_name: row.user_name, email: row.email ?? '', groupIds: memberships.map((membership) => membership.group_id) };
  };

  /** A shared load that is forgotten again when it fails (the next caller tries anew). */
  const shared = <T>(load: () => Promise<T>, drop: () => void): Promise<T> => {
    const promise = load();
    promise.catch(drop);
    return promise;
  };

  return {
    user(userId) {
      const known = users.get(userId);
      if (known) return known;
      if (users.size >= MAX_REMEMBERED_USERS) users.clear();
      const loading = shared(
        () => loadUser(userId),
        () => {
          if (users.get(userId) === loading) users.delete(userId);
        },
      );
      users.set(userId, loading);
      return loading;
    },
    async groupsAbove(user) {
      if (!groups) {
        const loading = shared(loadGroups, () => {
          if (groups === loading) groups = undefined;
        });
        groups = loading;
      }
      const byId = await groups;
      const seen = new Map<string, GraphGroup>();
      const queue = [...user.groupIds];
      for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
        const group = byId.get(id);
        if (!group || seen.has(id)) continue;
        seen.set(id, group);
        queue.push(...group.parentIds);
      }
      return [...seen.values()];
    },
    forget(what) {
      users.clear();
      if (what === 'all') groups = undefined;
    },
  };
}
