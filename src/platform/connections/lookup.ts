import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { Ids } from '../../core/ids.js';
import type { PlatformDatabase } from '../db.js';
import { deleteUserConnection, findUserConnection, upsertEnabled } from './store.js';

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

/** The seam over the connections table; the connector gateway decides visibility before it calls. */
export function createConnections(options: { db: Kysely<PlatformDatabase>; clock: Clock; ids: Ids }): Connections {
  const { db, clock, ids } = options;
  return {
    find: (userId, connectorId) => findUserConnection(db, userId, connectorId),
    setEnabled(userId, gatewayId, connectorId, enabled) {
      const now = clock.now();
      return upsertEnabled(db, {
        id: ids.uuid(),
        gateway_id: gatewayId,
        connector_id: connectorId,
        user_id: userId,
        enabled,
        tools_enabled_by_default: true,
        tools_exception_list: [],
        created_at: now,
        updated_at: now,
      });
    },
    remove: (userId, connectorId) => deleteUserConnection(db, userId, connectorId),
  };
}
