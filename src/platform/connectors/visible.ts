import type { Kysely } from 'kysely';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { PlatformDatabase } from '../db.js';
import { cursorsOf, keysetOf } from '../directory/paging.js';
import type { Page, PageQuery } from '../directory/schemas.js';
import { inOrder, type Keyset } from '../directory/store.js';
import type { Gateways } from '../gateways/index.js';
import type { Actor } from '../identity/actor.js';
import type { IdentityResolver } from '../identity/resolver.js';
import { presentConnector } from './present.js';
import type { Connector } from './schemas.js';
import { findConnector, listConnectors, type ConnectorRow } from './store.js';

/** The connectors the policies let the caller use (PLATFORM-API Part 4 §2 item 3): own data, no role needed. */
export interface VisibleConnectors {
  list(actor: Actor, gatewayId: string, query: PageQuery): Promise<Page<Connector>>;
  get(actor: Actor, gatewayId: string, id: string): Promise<Connector>;
}

export interface VisibleConnectorsOptions {
  db: Kysely<PlatformDatabase>;
  identity: IdentityResolver;
  decisions: ConnectorDecisions;
  gateways: Gateways;
}

/** How many connectors a page reads at a time while it looks for visible ones. */
const BATCH = 200;

export function createVisibleConnectors(options: VisibleConnectorsOptions): VisibleConnectors {
  const { db, identity, decisions, gateways } = options;

  const gateway = (gatewayId: string) => {
    if (!gateways.list().some((candidate) => candidate.id === gatewayId)) throw new NotFoundError(`no connector gateway with id "${gatewayId}" (GET /v1/gateways lists them)`);
  };

  /** Up to `page.limit + 1` visible rows in the direction read, skipping the invisible ones batch by batch. */
  const visibleRows = async (userId: string, gatewayId: string, page: Keyset): Promise<ConnectorRow[]> => {
    const found: ConnectorRow[] = [];
    let position: Keyset = { ...page, limit: BATCH };
    for (;;) {
      const batch = await listConnectors(db, gatewayId, position);
      const rows = batch.slice(0, BATCH);
      for (const row of rows) {
        if (await decisions.canUse(userId, row)) found.push(row);
        if (found.length > page.limit) return found;
      }
      const last = rows.at(-1);
      if (batch.length <= BATCH || last === undefined) return found;
      const key = [last.name, last.id] as const;
      position = page.before ? { before: key, limit: BATCH } : { after: key, limit: BATCH };
    }
  };

  return {
    async list(actor, gatewayId, query) {
      gateway(gatewayId);
      const { user } = await identity.resolve(actor);
      const list = `my-connectors:${gatewayId}`;
      const page = keysetOf({ list, ...query });
      const { rows, more } = inOrder(await visibleRows(user.id, gatewayId, page), page);
      const cursors = cursorsOf(list, rows, page, more, (row) => [row.name, row.id]);
      return { items: rows.map(presentConnector), ...(cursors.next && { next_cursor: cursors.next }), ...(cursors.prev && { prev_cursor: cursors.prev }) };
    },

    async get(actor, gatewayId, id) {
      gateway(gatewayId);
      const { user } = await identity.resolve(actor);
      const row = await findConnector(db, gatewayId, id);
      if (!row) throw new NotFoundError(`no connector with id ${id} on gateway "${gatewayId}"`);
      if (!(await decisions.canUse(user.id, row))) throw new ForbiddenError(`connector ${id} is not visible to you: its policy does not let you use it`);
      return presentConnector(row);
    },
  };
}
