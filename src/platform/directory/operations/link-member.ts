import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../../core/errors.js';
import type { PlatformDatabase } from '../../db.js';
import { findGroup, findUser, hasMember, insertMembers, isWithin, lockNesting, updateGroup, type GroupRow } from '../store.js';

export interface MemberLink {
  groupId: string;
  type: 'group' | 'user';
  memberId: string;
  now: Date;
}

/** The provisioner of a SCIM group, whose records are read-only through /v1. */
export function assertLocallyWritable(group: GroupRow): void {
  if (group.source.startsWith('scim:')) {
    throw new ConflictError(`group "${group.name}" is provisioned by the SCIM provisioner "${group.source.slice('scim:'.length)}" and is read-only here; change it in the identity provider`);
  }
}

/**
 * Adds a direct member to a group (in `trx`): the group row is locked, a duplicate or a cycle is a 409.
 * Nesting is serialised so two concurrent links cannot together close a cycle. Returns the group before.
 */
export async function linkMember(trx: Kysely<PlatformDatabase>, link: MemberLink, options: { scimWrite?: boolean } = {}): Promise<GroupRow> {
  if (link.type === 'group') await lockNesting(trx);
  const group = await findGroup(trx, link.groupId, { lock: true });
  if (!group) throw new NotFoundError(`no group with id ${link.groupId}`);
  if (!options.scimWrite) assertLocallyWritable(group);
  if (link.type === 'user') {
    if (!(await findUser(trx, link.memberId))) throw new NotFoundError(`no user with id ${link.memberId}`);
    if (await hasMember(trx, group.id, 'user', link.memberId)) throw new ConflictError(`the user ${link.memberId} is already a direct member of group "${group.name}"`);
  } else {
    const child = await findGroup(trx, link.memberId);
    if (!child) throw new NotFoundError(`no group with id ${link.memberId}`);
    if (child.id === group.id) throw new ConflictError('a group cannot contain itself');
    if (await hasMember(trx, group.id, 'group', child.id)) throw new ConflictError(`group "${child.name}" is already a direct child of group "${group.name}"`);
    if (await isWithin(trx, group.id, child.id)) throw new ConflictError(`group "${group.name}" is below group "${child.name}": adding it would make a cycle`);
  }
  await insertMembers(trx, group.id, [{ type: link.type, id: link.memberId }], link.now);
  await updateGroup(trx, group.id, { updated_at: link.now });
  return group;
}
