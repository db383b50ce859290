import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { insertGroup, insertMembers, isWithin, lockNesting, updateGroup, type GroupRow } from '../../directory/store.js';
import { ScimError } from '../errors.js';
import { groupFields, storable, type Resource } from '../mapping.js';
import type { Provisioner } from '../provisioners.js';
import { deleteMembers, kindsOf, membersOf } from '../store.js';
import { groupNameTaken } from '../../directory/store.js';

export interface GroupWrite {
  provisioner: Provisioner;
  existing: GroupRow | undefined;
  resource: Resource;
  newId: string;
  now: Date;
}

/**
 * Creates or replaces a provisioner's group and sets its direct members to exactly those listed (in
 * `trx`): each must be a user or group of this provisioner, and no group may end up inside itself.
 */
export async function writeGroup(trx: Kysely<PlatformDatabase>, write: GroupWrite): Promise<string> {
  const { provisioner, existing, resource, now } = write;
  const fields = groupFields(resource);
  const id = existing?.id ?? write.newId;
  if (await groupNameTaken(trx, provisioner.source, fields.displayName, id)) throw new ScimError(409, `displayName "${fields.displayName}" is already taken`, 'uniqueness');

  const wanted = [...new Set(fields.members.map((member) => member.value))];
  const kinds = await kindsOf(trx, provisioner.source, wanted);
  const unknown = wanted.filter((value) => !kinds.has(value));
  if (unknown.length > 0) throw new ScimError(400, `members: no user or group of this provisioner has the id ${unknown.slice(0, 5).join(', ')}`, 'invalidValue');
  const members = wanted.map((value) => ({ id: value, type: kinds.get(value) ?? 'user' }));

  const scimResource = JSON.stringify(storable(resource, 'Group'));
  if (existing) await updateGroup(trx, id, { name: fields.displayName, display_name: fields.displayName, external_id: fields.externalId, scim_resource: scimResource, updated_at: now });
  else {
    await insertGroup(trx, { id, name: fields.displayName, display_name: fields.displayName, description: '', source: provisioner.source, external_id: fields.externalId, scim_resource: scimResource, created_at: now, updated_at: now });
  }

  const current = existing ? await membersOf(trx, [id]) : [];
  const key = (member: { type: string; id: string }) => `${member.type}:${member.id}`;
  const wantedKeys = new Set(members.map(key));
  const currentKeys = new Set(current.map(key));
  const added = members.filter((member) => !currentKeys.has(key(member)));
  await deleteMembers(trx, id, current.filter((member) => !wantedKeys.has(key(member))));
  const addedGroups = added.filter((member) => member.type === 'group');
  if (addedGroups.length > 0) {
    await lockNesting(trx);
    for (const child of addedGroups) {
      if (child.id === id || (await isWithin(trx, id, child.id))) throw new ScimError(400, `members: group ${child.id} contains this group; adding it would make a cycle`, 'invalidValue');
    }
  }
  await insertMembers(trx, id, added, now);
  return id;
}
