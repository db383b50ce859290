import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../../core/errors.js';
import type { PlatformDatabase } from '../../db.js';
import { statusOf } from '../present.js';
import { findKey, type KeyRow } from '../store.js';
import { writeKey, type KeyWriteContext } from './write-key.js';

export type KeyAction = 'disable' | 'enable' | 'revoke';

export interface KeyStateChange {
  id: string;
  action: KeyAction;
  /** Through /v1/me: only this owner's key is found (another's is a 404). Through /v1/keys: undefined. */
  owner: string | undefined;
}

/**
 * One transition of PLATFORM-API Part 2 §3 on a locked key. A transition that changes nothing writes
 * nothing (and audits nothing). An administrator's disable sticks: the owner cannot enable it again.
 */
export async function changeKeyState(trx: Kysely<PlatformDatabase>, change: KeyStateChange, context: KeyWriteContext): Promise<KeyRow> {
  const row = await findKey(trx, change.id, { lock: true });
  if (!row || (change.owner !== undefined && row.owner_ref !== change.owner)) throw new NotFoundError(`no key with id ${change.id}`);
  const status = statusOf(row, context.now);
  const byAdmin = change.owner === undefined;
  const action = `key.${change.action}`;
  switch (change.action) {
    case 'disable':
      if (status === 'active') return writeKey(trx, row, { state: 'disabled', disabled_by_admin: byAdmin }, action, context);
      if (status === 'disabled' && byAdmin && !row.disabled_by_admin) return writeKey(trx, row, { disabled_by_admin: true }, action, context);
      return row;
    case 'enable':
      if (status === 'revoked') throw new ConflictError(`key ${row.id} is revoked: revocation is permanent; create a new key`);
      if (status === 'expired') throw new ConflictError(`key ${row.id} expired at ${row.expires_at?.toISOString() ?? ''}; create a new key`);
      if (status === 'active') return row;
      if (!byAdmin && row.disabled_by_admin) throw new ConflictError(`key ${row.id} was disabled by an administrator: only an administrator can enable it`);
      return writeKey(trx, row, { state: 'active', disabled_by_admin: false }, action, context);
    case 'revoke':
      if (status === 'revoked') return row;
      return writeKey(trx, row, { state: 'revoked', previous_hash: null, previous_valid_until: null }, action, context);
  }
}
