import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { presentUser } from '../../directory/present.js';
import { findUser, type UserRow } from '../../directory/store.js';
import type { User } from '../../directory/schemas.js';
import { ScimError } from '../errors.js';
import { storable, userFields, type Resource } from '../mapping.js';
import type { Provisioner } from '../provisioners.js';
import { identityOwner, rebindIdentity, upsertUser } from '../store.js';

export interface UserWrite {
  provisioner: Provisioner;
  /** The user being replaced; absent for a create. */
  existing: UserRow | undefined;
  resource: Resource;
  newId: string;
  now: Date;
}

export interface UserWriteResult {
  id: string;
  /** The row as written (no need to read it back). */
  row: UserRow;
  action: 'user.create' | 'user.adopt' | 'user.replace';
  before: User | null;
}

/**
 * Creates or replaces a provisioner's user (in `trx`). A create whose binding value is the external id
 * of a just-in-time user of the same issuer takes that user over: same id, so its keys and budgets stay.
 */
export async function writeUser(trx: Kysely<PlatformDatabase>, write: UserWrite): Promise<UserWriteResult> {
  const { provisioner, resource, now } = write;
  const fields = userFields(resource);
  let target = write.existing;
  let action: UserWriteResult['action'] = target ? 'user.replace' : 'user.create';
  const binding = provisioner.bindingAttribute === 'userName' ? fields.user_name : fields.externalId;
  const ownerId = provisioner.issuer !== undefined && binding !== undefined ? await identityOwner(trx, provisioner.issuer, binding) : undefined;
  const owner = ownerId === undefined || target?.id === ownerId ? undefined : await findUser(trx, ownerId);
  if (!target && owner?.source === 'jit') {
    target = owner;
    action = 'user.adopt';
  }
  const id = target?.id ?? write.newId;
  if (ownerId !== undefined && ownerId !== id) throw new ScimError(409, `${provisioner.bindingAttribute} "${binding ?? ''}" already identifies another user`, 'uniqueness');
  const stored = storable(resource, 'User');
  const columns = {
    id,
    user_name: fields.user_name,
    display_name: fields.display_name,
    email: fields.email,
    photo_url: fields.photo_url,
    active: fields.active,
    source: provisioner.source,
    created_at: target?.created_at ?? now,
    updated_at: now,
  };
  const row: UserRow = { ...columns, scim_resource: stored, revision: (target?.revision ?? 0) + 1 };
  try {
    await upsertUser(trx, { ...columns, scim_resource: JSON.stringify(stored) }, target !== undefined);
  } catch (error) {
    // the unique index on (source, lower(user_name)) decides, so two concurrent creates cannot both pass
    if ((error as { code?: unknown }).code === '23505') throw new ScimError(409, `userName "${fields.user_name}" is already taken`, 'uniqueness');
    throw error;
  }
  if (provisioner.issuer !== undefined && (target !== undefined || binding !== undefined)) {
    if (!(await rebindIdentity(trx, provisioner.issuer, id, binding, { fresh: target === undefined }))) {
      throw new ScimError(409, `${provisioner.bindingAttribute} "${binding ?? ''}" already identifies another user`, 'uniqueness');
    }
  }
  return { id, row, action, before: target ? presentUser(target) : null };
}
