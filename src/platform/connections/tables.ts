import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

export interface ConnectionsTable {
  id: string;
  gateway_id: string;
  connector_id: string;
  user_id: string;
  enabled: boolean;
  tools_enabled_by_default: boolean;
  /** Upstream tool names, unique. */
  tools_exception_list: ColumnType<string[], string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConnectionsTables {
  connections: ConnectionsTable;
}
