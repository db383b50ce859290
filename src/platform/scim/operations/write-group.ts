import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { containersOf, insertGroup, insertMembers, lockNesting, updateGroup, type GroupRow } from '../../directory/store.js';
import { ScimError } from '../errors.js';
import { groupFields, storable, type Resource } from '../mapping.js';
import type { Provisioner } from '../provisioners.js';
import { deleteMembers, kindsOf, membersOf } from '../store.js';

export interface GroupWrite {
  provisioner: Provisioner;
  existing: GroupRow | undefined;
  resource: Resource;
  newId: string;
  now: Date;
  /** The group's direct members when the caller has just read them (a PATCH), to spare reading them again. */
  currentMembers?: { type: 'user' | 'group'; id: string }[];
}

/**
 * Creates or replaces a provisioner's group and sets its direct members to exactly those listed (in
 * `trx`): each must be a user or group of this provisioner, and no group may end up inside itself.
 */
export async function writeGroup(trx: Kysely<PlatformDatabase>, write: GroupWrite): Promise<GroupRow> {
  const { provisioner, existing, resource, now } = write;
  const fields = groupFields(resource);
  const id = existing?.id ?? write.newId;

  const wanted = [...new Set(fields.members.map((member) => member.value))];
  const kinds = await kindsOf(trx, provisioner.source, wanted);
  const unknown = wanted.filter((value) => !kinds.has(value));
  if (unknown.length > 0) throw new ScimError(400, `members: no user or group of this provisioner has the id ${unknown.slice(0, 5).join(', ')}`, 'invalidValue');
  const members = wanted.map((value) => ({ id: value, type: kinds.get(value) ?? 'user' }));

  const stored = storable(resource, 'Group');
  const columns = { name: fields.displayName, display_name: fields.displayName, external_id: fields.externalId, updated_at: now };
  try {
    if (existing) await updateGroup(trx, id, { ...columns, scim_resource: JSON.stringify(stored) });
    else await insertGroup(trx, { ...columns, id, description: '', source: provisioner.source, scim_resource: JSON.stringify(stored), created_at: now });
  } catch (error) {
    // the unique index on (source, lower(name)) decides, so two concurrent writes cannot both pass
    if ((error as { code?: unknown }).code === '23505') throw new ScimError(409, `displayName "${fields.displayName}" is already taken`, 'uniqueness');
    throw error;
  }

  const current = existing ? (write.currentMembers ?? (await membersOf(trx, [id]))) : [];
  const key = (member: { type: string; id: string }) => `${member.type}:${member.id}`;
  const wantedKeys = new Set(members.map(key));
  const currentKeys = new Set(current.map(key));
  const added = members.filter((member) => !currentKeys.has(key(member)));
  await deleteMembers(trx, id, current.filter((member) => !wantedKeys.has(key(member))));
  const addedGroups = added.filter((member) => member.type === 'group');
  if (addedGroups.length > 0) {
    await lockNesting(trx);
    const [container] = await containersOf(trx, id, addedGroups.map((child) => child.id));
    if (container !== undefined) throw new ScimError(400, `members: group ${container} contains this group; adding it would make a cycle`, 'invalidValue');
  }
  await insertMembers(trx, id, added, now);
  return {
    id,
    ...columns,
    description: existing?.description ?? '',
    source: provisioner.source,
    scim_resource: stored,
    revision: (existing?.revision ?? 0) + 1,
    created_at: existing?.created_at ?? now,
  };
}
