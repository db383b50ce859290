import type { Kysely } from 'kysely';
import type { PlatformDatabase } from '../../db.js';
import { unrevokedKeysOfOwner } from '../store.js';
import { writeKey, type KeyWriteContext } from './write-key.js';

/** Revokes every key of a user, inside the transaction that deletes the user. */
export async function revokeOwnerKeys(trx: Kysely<PlatformDatabase>, ownerRef: string, context: KeyWriteContext): Promise<number> {
  const keys = await unrevokedKeysOfOwner(trx, ownerRef);
  for (const key of keys) await writeKey(trx, key, { state: 'revoked', previous_hash: null, previous_valid_until: null }, 'key.revoke', context);
  return keys.length;
}
