import type { Key, KeyStatus } from './schemas.js';
import type { KeyRow } from './store.js';

/** revoked > expired > disabled: expiry is read from the clock, never stored. */
export function statusOf(row: Pick<KeyRow, 'state' | 'expires_at'>, now: Date): KeyStatus {
  if (row.state === 'revoked') return 'revoked';
  if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return row.state;
}

/** The key as the API shows it: never its secret nor its hash. */
export function presentKey(row: KeyRow, now: Date): Key {
  return {
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
    expires_at: row.expires_at?.toISOString() ?? null,
    id: row.id,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    metadata: row.metadata,
    name: row.name,
    owner_ref: row.owner_ref,
    prefix: row.prefix,
    status: statusOf(row, now),
  };
}
