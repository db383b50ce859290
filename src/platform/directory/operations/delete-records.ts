import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import type { DirectoryHooks } from '../../context.js';
import type { Actor } from '../../identity/actor.js';

/**
 * Deletes a user with its memberships and identity bindings, and runs the hooks of the features that
 * hold its data (a deleted user's keys are revoked) in the same transaction. The groups it left move to
 * their next revision.
 */
export async function deleteUserRecord(trx: Kysely<PlatformDatabase>, userId: string, options: { hooks: DirectoryHooks; actor: Actor; now: Date }): Promise<void> {
  for (const hook of options.hooks.userDeleted) await hook(trx, userId, options.actor);
  await touchParents(trx, 'user', userId, options.now);
  await trx.deleteFrom('group_members').where('member_type', '=', 'user').where('member_id', '=', userId).execute();
  await trx.deleteFrom('users').where('id', '=', userId).execute();
}

/** Deletes a group, its own member links (cascade) and its place in other groups. */
export async function deleteGroupRecord(trx: Kysely<PlatformDatabase>, groupId: string, now: Date): Promise<void> {
  await touchParents(trx, 'group', groupId, now);
  await trx.deleteFrom('group_members').where('member_type', '=', 'group').where('member_id', '=', groupId).execute();
  await trx.deleteFrom('groups').where('id', '=', groupId).execute();
}

async function touchParents(trx: Kysely<PlatformDatabase>, type: 'user' | 'group', memberId: string, now: Date): Promise<void> {
  await trx
    .updateTable('groups')
    .set((eb) => ({ revision: eb('revision', '+', 1), updated_at: now }))
    .where('id', 'in', trx.selectFrom('group_members').select('group_id').where('member_type', '=', type).where('member_id', '=', memberId))
    .execute();
}
