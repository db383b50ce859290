import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

/** One row (id 1): the directives an administrator set. */
export interface ClientConfigDirectivesTable {
  id: number;
  config: ColumnType<Record<string, unknown>, string, string>;
  refresh_interval: string;
  validity: string;
  revision: number;
  updated_at: Timestamp | null;
}

/** Every envelope signed; replicas serve the stored bytes of the newest (highest sequence). */
export interface ClientConfigEnvelopesTable {
  id: string;
  sequence: Generated<number>;
  kid: string;
  etag: string;
  body: string;
  issued_at: Timestamp;
  not_after: Timestamp;
  directives_revision: number;
}

export interface ClientConfigTables {
  client_config_directives: ClientConfigDirectivesTable;
  client_config_envelopes: ClientConfigEnvelopesTable;
}
