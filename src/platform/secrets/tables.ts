import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

export interface ManagedSecretsTable {
  id: string;
  name: string;
  /** The value sealed with AES-256-GCM (see cipher.ts); never leaves the feature except through `reveal`. */
  sealed: ColumnType<Uint8Array, Buffer, Buffer>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One use of a managed secret by a record of another feature (an identity provider's client secret, ...). */
export interface ManagedSecretReferencesTable {
  owner_type: string;
  owner_id: string;
  /** Where in the owner the reference sits, as its API names it (`oidc_config.client_secret`). */
  field: string;
  /** The owner's name when the reference was written, for the 409 of a delete. */
  owner_name: string;
  managed_secret_id: string;
}

export interface SecretsTables {
  managed_secrets: ManagedSecretsTable;
  managed_secret_references: ManagedSecretReferencesTable;
}
