import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { PlatformContext } from '../context.js';
import type { Gateways } from '../gateways/index.js';
import { authorizeConnections } from './authz.js';
import { createConnections, type Connections } from './lookup.js';
import { registerConnectionRoutes } from './routes.js';
import { ConnectionSchema } from './schemas.js';
import { createConnectionService } from './service.js';
import { deleteConnectionsOfUser } from './store.js';

/** Connections (PLATFORM-API Part 4 §4): the /v1/me/connections and admin routes, and the seam the connector gateway reads. */
export function registerConnectionsFeature(context: PlatformContext, options: { decisions: ConnectorDecisions; gateways: Gateways }): { connections: Connections } {
  const { http, db, clock, ids, audit, access, identity } = context;
  http.addSchema(ConnectionSchema);
  const connections = createConnections({ db, clock, ids, changes: context.changes });
  const service = createConnectionService({ db, clock, ids, audit, identity, decisions: options.decisions, gateways: options.gateways, memory: connections });
  registerConnectionRoutes(http, { service: authorizeConnections(service, access), access });
  context.hooks.userDeleted.push((trx, userId) => deleteConnectionsOfUser(trx, userId));
  return { connections };
}
