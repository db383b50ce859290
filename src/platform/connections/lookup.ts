import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import type { Ids } from '../../core/ids.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';
import { deleteUserConnection, findUserConnection, lockUserConnection, upsertEnabled, type ConnectionRow } from './store.js';

/** A user's connection to a connector as the connector gateway reads it (PLATFORM-API Part 4 §4): the stored row. */
export type ConnectionState = ConnectionRow;

/** Checks the current connection inside a write, throwing when the write must not happen. */
export type Precondition = (current: ConnectionState | undefined) => void;

/** The connections the connector gateway needs: read per call, created or removed as the caller's state. */
export interface Connections {
  find(userId: string, connectorId: string): Promise<ConnectionState | undefined>;
  /**
   * Creates the caller's connection enabled or not, or sets `enabled` on the existing one. `holds` sees the
   * connection as it is under the write's lock and throws to refuse the write (an If-Match that no longer holds).
   */
  setEnabled(userId: string, gatewayId: string, connectorId: string, enabled: boolean, holds?: Precondition): Promise<ConnectionState>;
  /** Removes the caller's connection (back to the default: enabled, every tool); false when there was none. */
  remove(userId: string, connectorId: string, holds?: Precondition): Promise<boolean>;
}

/** Narrowing: with no connection every tool is enabled; otherwise the default, except the listed names. */
export function toolEnabled(connection: ConnectionState | undefined, toolName: string): boolean {
  if (connection === undefined) return true;
  if (!connection.enabled) return false;
  return connection.tools_enabled_by_default !== connection.tools_exception_list.includes(toolName);
}

/** The seam with its memory: the connections a replica read, forgotten whenever any replica writes one. */
export interface ConnectionMemory extends Connections {
  /** Announces a connection write inside the writer's transaction (every replica forgets on commit). */
  announce(trx: Kysely<PlatformDatabase>): Promise<void>;
  /** Forgets at once on this replica (after a local write commits, before the feed brings the news). */
  forget(): void;
}

export interface ConnectionsOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  changes: ChangeFeed;
}

/** Past this many remembered (user, connector) pairs the memory starts over (it only saves reads). */
const MAX_REMEMBERED = 100_000;

/**
 * The connector gateway reads a connection on every call, so answers are kept in memory (absent ones too).
 * Connection writes, connector deletes and user deletes move a change-feed topic, and every replica then
 * forgets everything; a read that started before the change is not remembered.
 */
export function createConnections(options: ConnectionsOptions): ConnectionMemory {
  const { db, clock, ids, changes } = options;
  const remembered = new Map<string, ConnectionState | null>();
  let generation = 0;
  const forget = () => {
    generation += 1;
    remembered.clear();
  };
  for (const topic of [TOPICS.connections, TOPICS.connectors, TOPICS.users]) changes.subscribe(topic, forget);
  const written = async <T>(userId: string, connectorId: string, holds: Precondition | undefined, write: (trx: Kysely<PlatformDatabase>) => Promise<T>): Promise<T> => {
    const result = await db.transaction().execute(async (trx) => {
      const current = await lockUserConnection(trx, userId, connectorId);
      holds?.(current);
      const value = await write(trx);
      await changes.publish(trx as never, TOPICS.connections);
      return value;
    });
    forget();
    return result;
  };
  return {
    async find(userId, connectorId) {
      const key = `${userId}/${connectorId}`;
      const known = remembered.get(key);
      if (known !== undefined) return known ?? undefined;
      const startedAt = generation;
      const row = await findUserConnection(db, userId, connectorId);
      if (startedAt === generation) {
        if (remembered.size >= MAX_REMEMBERED) remembered.clear();
        remembered.set(key, row ?? null);
      }
      return row;
    },
    setEnabled(userId, gatewayId, connectorId, enabled, holds) {
      const now = clock.now();
      return written(userId, connectorId, holds, (trx) =>
        upsertEnabled(trx, {
          id: ids.uuid(),
          gateway_id: gatewayId,
          connector_id: connectorId,
          user_id: userId,
          enabled,
          tools_enabled_by_default: true,
          tools_exception_list: [],
          created_at: now,
          updated_at: now,
        }),
      );
    },
    remove: (userId, connectorId, holds) => written(userId, connectorId, holds, (trx) => deleteUserConnection(trx, userId, connectorId)),
    announce: (trx) => changes.publish(trx as never, TOPICS.connections),
    forget,
  };
}
