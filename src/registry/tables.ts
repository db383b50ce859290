import type { ColumnType, Generated } from 'kysely';

/** Claims: key to a string or a list of strings. */
export type Claims = Record<string, string | string[]>;

type Timestamp = ColumnType<Date, Date, Date>;
type Json<T> = ColumnType<T, string, string>;

export type SourceKind = 'git' | 'api' | 'file' | 'managed' | 'kubernetes';
export type CreationType = 'API' | 'CONFIG';
export type EntryType = 'server' | 'skill' | 'plugin';
export type SyncPhase = 'syncing' | 'complete' | 'failed';

export interface SourcesTable {
  name: string;
  kind: SourceKind;
  config: Json<Record<string, unknown>>;
  filter: Json<FilterConfig>;
  claims: Json<Claims>;
  sync_interval_ms: number | null;
  sync_schedule: string;
  creation_type: CreationType;
  entries_generation: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FilterConfig {
  names: { include: string[]; exclude: string[] };
  tags: { include: string[]; exclude: string[] };
}

export interface SourceSyncTable {
  source_name: string;
  phase: SyncPhase;
  last_attempt: Timestamp | null;
  last_sync_time: Timestamp | null;
  attempt_count: ColumnType<number, number | undefined, number>;
  message: ColumnType<string, string | undefined, string>;
  server_count: ColumnType<number, number | undefined, number>;
  skill_count: ColumnType<number, number | undefined, number>;
  plugin_count: ColumnType<number, number | undefined, number>;
  content_hash: string | null;
  next_sync_at: Timestamp | null;
  /** Set when a sync is asked for (API, definition change); a sync that started before it runs again. */
  sync_requested_at: Timestamp | null;
  lease_owner: string | null;
  lease_until: Timestamp | null;
}

export interface RegistriesTable {
  name: string;
  claims: Json<Claims>;
  creation_type: CreationType;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RegistrySourcesTable {
  registry_name: string;
  source_name: string;
  position: number;
}

export interface EntriesTable {
  id: Generated<number>;
  source_name: string;
  entry_type: EntryType;
  name: string;
  version: string;
  status: string;
  status_message: string | null;
  title: string;
  description: string;
  claims: Json<Claims>;
  body: string;
  hash: string;
  published_at: Timestamp;
  updated_at: Timestamp;
  status_changed_at: Timestamp;
  created_at: Timestamp;
}

export interface CatalogStateTable {
  id: number;
  generation: number;
}

export interface RegistryDatabase {
  sources: SourcesTable;
  source_sync: SourceSyncTable;
  registries: RegistriesTable;
  registry_sources: RegistrySourcesTable;
  entries: EntriesTable;
  catalog_state: CatalogStateTable;
}
