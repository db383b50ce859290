import type { ColumnType } from 'kysely';
import type { SecretRef } from '../connector-idps/schemas.js';
import type { Auth, AuthType } from './schemas.js';

type Timestamp = ColumnType<Date, Date, Date>;
type Block<K extends keyof Auth> = NonNullable<Auth[K]>;

/** The auth union as stored: the type's block with defaults and its secret references (never values). */
export interface StoredAuth {
  type: AuthType;
  cloud_sts?: Block<'cloud_sts'>;
  header_injection?: Block<'header_injection'> & { value: SecretRef | null };
  obo?: Block<'obo'> & { client_secret: SecretRef | null };
  token_exchange?: Omit<Block<'token_exchange'>, 'client_secret_configured'> & { client_secret: SecretRef | null };
  upstream_inject?: Block<'upstream_inject'>;
  xaa?: Block<'xaa'> & { idp_client_secret: SecretRef | null; target_client_secret: SecretRef | null };
}

export interface ConnectorsTable {
  id: string;
  gateway_id: string;
  name: string;
  /** PLATFORM-API Part 4 §7 item 1, unique on the gateway. */
  tool_prefix: string;
  endpoint: string;
  /** The endpoint as uniqueness compares it (scheme and host lower-cased, default port dropped). */
  endpoint_key: string;
  transport: 'streamable-http' | 'sse';
  auth: ColumnType<StoredAuth, string, string>;
  provider_id: string | null;
  description: string | null;
  version: string | null;
  icon_url: string | null;
  repository_url: string | null;
  support_url: string | null;
  allow_private_ips: boolean;
  origin: 'manual' | 'kubernetes_cluster' | 'registry';
  source_name: string | null;
  source_namespace: string | null;
  status: 'verified' | 'auth_required' | 'unreachable';
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConnectorsTables {
  connectors: ConnectorsTable;
}
