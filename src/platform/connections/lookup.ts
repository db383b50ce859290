/** A user's connection to a connector as the connector gateway reads it (PLATFORM-API Part 4 §4). */
export interface ConnectionState {
  id: string;
  gateway_id: string;
  connector_id: string;
  user_id: string;
  enabled: boolean;
  tools_enabled_by_default: boolean;
  tools_exception_list: string[];
  created_at: Date;
  updated_at: Date;
}

/** The connections the connector gateway needs: read per call, created or removed as the caller's state. */
export interface Connections {
  find(userId: string, connectorId: string): Promise<ConnectionState | undefined>;
  /** Creates the caller's connection enabled or not, or sets `enabled` on the existing one. */
  setEnabled(userId: string, gatewayId: string, connectorId: string, enabled: boolean): Promise<ConnectionState>;
  /** Removes the caller's connection (back to the default: enabled, every tool); false when there was none. */
  remove(userId: string, connectorId: string): Promise<boolean>;
}

/** Narrowing: with no connection every tool is enabled; otherwise the default, except the listed names. */
export function toolEnabled(connection: ConnectionState | undefined, toolName: string): boolean {
  if (connection === undefined) return true;
  if (!connection.enabled) return false;
  return connection.tools_enabled_by_default !== connection.tools_exception_list.includes(toolName);
}
