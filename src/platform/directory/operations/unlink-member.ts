import type { Kysely } from 'kysely';
import { NotFoundError } from '../../../core/errors.js';
import type { PlatformDatabase } from '../../db.js';
import { deleteMember, findGroup, updateGroup, type GroupRow } from '../store.js';
import { assertLocallyWritable, type MemberLink } from './link-member.js';

/** Removes a direct member (in `trx`); a missing group, member or link is a 404. Returns the group before. */
export async function unlinkMember(trx: Kysely<PlatformDatabase>, link: MemberLink): Promise<GroupRow> {
  const group = await findGroup(trx, link.groupId, { lock: true });
  if (!group) throw new NotFoundError(`no group with id ${link.groupId}`);
  assertLocallyWritable(group);
  if (!(await deleteMember(trx, group.id, link.type, link.memberId))) {
    throw new NotFoundError(`the ${link.type} ${link.memberId} is not a direct member of group "${group.name}"`);
  }
  await updateGroup(trx, group.id, { updated_at: link.now });
  return group;
}
