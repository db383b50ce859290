import type { Connection } from './schemas.js';
import type { ConnectionRow } from './store.js';

export function presentConnection(row: ConnectionRow): Connection {
  return {
    connector_id: row.connector_id,
    created_at: row.created_at.toISOString(),
    enabled: row.enabled,
    gateway_id: row.gateway_id,
    id: row.id,
    tools_enabled_by_default: row.tools_enabled_by_default,
    tools_exception_list: row.tools_exception_list,
    updated_at: row.updated_at.toISOString(),
    user_id: row.user_id,
  };
}
