import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type Json<T> = ColumnType<T, string, string>;
/** bigint columns arrive as strings from pg and as numbers from PGlite. */
type BigIntColumn = ColumnType<string | number, string | number, string | number>;

export interface AiPoliciesTable {
  name: string;
  uid: string;
  /** From the sequence ai_policy_resource_versions; every stored change takes a new one. */
  resource_version: BigIntColumn;
  generation: BigIntColumn;
  creation_timestamp: Timestamp;
  gateway_name: string;
  labels: Json<Record<string, string>>;
  annotations: Json<Record<string, string>>;
  spec: Json<unknown>;
  status: Json<unknown>;
}

/** A deleted policy, at the resource version of its delete, so replicas following changes learn of it. */
export interface AiPolicyDeletionsTable {
  name: string;
  resource_version: BigIntColumn;
}

/** One row: the key that protects page tokens, shared by every replica; writes lock it to keep versions in commit order. */
export interface AiPolicySettingsTable {
  id: number;
  page_token_key: string;
}

export interface AiPoliciesTables {
  ai_policies: AiPoliciesTable;
  ai_policy_deletions: AiPolicyDeletionsTable;
  ai_policy_settings: AiPolicySettingsTable;
}
