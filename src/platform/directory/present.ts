import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { Group, User } from './schemas.js';
import { firstMembers, transitiveCounts, type GroupRow, type UserRow } from './store.js';

/** How many direct members a group record shows. */
export const SHOWN_MEMBERS = 100;

export function presentUser(row: UserRow): User {
  return {
    active: row.active,
    created_at: row.created_at.toISOString(),
    display_name: row.display_name,
    email: row.email,
    id: row.id,
    photo_url: row.photo_url,
    source: row.source,
    updated_at: row.updated_at.toISOString(),
    user_name: row.user_name,
  };
}

/** The version of a record: it moves with its fields and (groups) its direct members, not with a descendant's. */
export const versionOf = (row: { id: string; revision: number }): string => createHash('sha256').update(`${row.id}:${String(row.revision)}`).digest('hex').slice(0, 32);
export const etagOf = (row: { id: string; revision: number }): string => `"${versionOf(row)}"`;

/** Group records with their first members and transitive counts: two queries for the whole list, whatever its length. */
export async function presentGroups(db: Kysely<PlatformDatabase>, rows: readonly GroupRow[]): Promise<Group[]> {
  const ids = rows.map((row) => row.id);
  const [members, counts] = await Promise.all([firstMembers(db, ids, SHOWN_MEMBERS), transitiveCounts(db, ids)]);
  const byGroup = new Map<string, Group['members']>();
  for (const member of members) {
    const list = byGroup.get(member.group_id) ?? [];
    list.push({ display: member.display, id: member.id, type: member.type });
    byGroup.set(member.group_id, list);
  }
  return rows.map((row) => ({
    created_at: row.created_at.toISOString(),
    description: row.description,
    display_name: row.display_name,
    id: row.id,
    members: byGroup.get(row.id) ?? [],
    name: row.name,
    source: row.source,
    transitive_member_count: counts.get(row.id) ?? 0,
    updated_at: row.updated_at.toISOString(),
  }));
}

export async function presentGroup(db: Kysely<PlatformDatabase>, row: GroupRow): Promise<Group> {
  const [group] = await presentGroups(db, [row]);
  if (!group) throw new Error('presentGroups returned no record for one row');
  return group;
}
