import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../../core/db/change-feed.js';
import { allConnectors, type ConnectorRow } from '../connectors/store.js';
import { TOPICS } from '../context.js';
import type { PlatformDatabase } from '../db.js';

/** Every connector, as the gateway looks them up on each request. */
export interface CatalogSnapshot {
  byId: ReadonlyMap<string, ConnectorRow>;
  /** The connectors of each gateway, by name. */
  byGateway: ReadonlyMap<string, readonly ConnectorRow[]>;
  /** `<gateway id>\0<tool prefix>` → connector (the prefix is unique on a gateway). */
  byPrefix: ReadonlyMap<string, ConnectorRow>;
}

export interface ConnectorCatalog {
  current(): Promise<CatalogSnapshot>;
  /** Runs after each reload with the new snapshot (the upstream pool drops clients of changed connectors). */
  onReload(listener: (snapshot: CatalogSnapshot) => void): void;
}

export const prefixKey = (gatewayId: string, prefix: string): string => `${gatewayId}\u0000${prefix}`;

function snapshotOf(rows: ConnectorRow[]): CatalogSnapshot {
  const byGateway = new Map<string, ConnectorRow[]>();
  for (const row of rows) {
    const list = byGateway.get(row.gateway_id) ?? [];
    list.push(row);
    byGateway.set(row.gateway_id, list);
  }
  return {
    byId: new Map(rows.map((row) => [row.id, row])),
    byGateway,
    byPrefix: new Map(rows.map((row) => [prefixKey(row.gateway_id, row.tool_prefix), row])),
  };
}

/**
 * The connectors in memory: a query per tool call cannot reach the gateway's throughput. Any connector
 * write anywhere (the change feed) marks the snapshot stale; the next request reads them again, so an
 * update or a delete applies from the first request after the notification.
 */
export function createConnectorCatalog(options: { db: Kysely<PlatformDatabase>; changes: ChangeFeed; logger: Logger }): ConnectorCatalog {
  const listeners: ((snapshot: CatalogSnapshot) => void)[] = [];
  let generation = 0;
  let loaded: { generation: number; snapshot: Promise<CatalogSnapshot> } | undefined;

  options.changes.subscribe(TOPICS.connectors, () => {
    generation += 1;
  });

  const load = (): Promise<CatalogSnapshot> => {
    const since = generation;
    const snapshot = allConnectors(options.db).then((rows) => {
      const next = snapshotOf(rows);
      for (const listener of listeners) {
        try {
          listener(next);
        } catch (error) {
          options.logger.warn({ err: error }, 'a connector catalog listener failed');
        }
      }
      return next;
    });
    loaded = { generation: since, snapshot };
    // a failed read is tried again by the next request
    snapshot.catch(() => {
      if (loaded?.snapshot === snapshot) loaded = undefined;
    });
    return snapshot;
  };

  return {
    current() {
      if (loaded && loaded.generation === generation) return loaded.snapshot;
      return load();
    },
    onReload(listener) {
      listeners.push(listener);
    },
  };
}
