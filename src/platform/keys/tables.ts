import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

/** `state` is what people set; `expired` is computed from `expires_at` when read. */
export type KeyState = 'active' | 'disabled' | 'revoked';

export interface VirtualKeysTable {
  id: string;
  /** The creator's directory user. */
  owner_ref: string;
  name: string;
  metadata: ColumnType<Record<string, string>, string, string>;
  state: KeyState;
  /** Disabled through /v1/keys: only an administrator may enable it again. */
  disabled_by_admin: boolean;
  /** SHA-256 hex of the current secret. */
  secret_hash: string;
  prefix: string;
  /** SHA-256 hex of the secret replaced by the last rotation, accepted until previous_valid_until. */
  previous_hash: string | null;
  previous_valid_until: Timestamp | null;
  expires_at: Timestamp | null;
  created_at: Timestamp;
  /** The creating token's OIDC subject and issuer, carried by the key's charges. */
  created_by: string;
  created_by_issuer: string | null;
  last_used_at: Timestamp | null;
  /** From virtual_keys_change_seq on every write: replicas read the rows past the last number they saw. */
  change_seq: number;
}

export interface KeysTables {
  virtual_keys: VirtualKeysTable;
}
