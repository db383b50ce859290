import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { PlatformContext } from '../context.js';
import type { Gateways } from '../gateways/index.js';
import type { ManagedSecrets } from '../secrets/index.js';
import { authorizeConnectors } from './authz.js';
import { createEndpointChecker } from './check.js';
import { registerConnectorRoutes } from './routes.js';
import { ConnectorSchema } from './schemas.js';
import { createConnectorService } from './service.js';
import { createVisibleConnectors } from './visible.js';
import { registerVisibleConnectorRoutes } from './visible-routes.js';

export { endpointKeyOf } from './validate.js';

/**
 * Connectors of each gateway: /v1/gateways/{gateway_id}/connectors (the admin routes of PLATFORM-API Part 4
 * §2) and /v1/me/gateways/{gateway_id}/connectors (those visible to the caller).
 */
export function registerConnectorsFeature(context: PlatformContext, options: { secrets: ManagedSecrets; gateways: Gateways; decisions: ConnectorDecisions }): void {
  const { http, db, clock, ids, audit, access, logger, identity, changes } = context;
  http.addSchema(ConnectorSchema);
  const checkEndpoint = createEndpointChecker({ logger });
  const service = createConnectorService({ db, clock, ids, audit, secrets: options.secrets, gateways: options.gateways, checkEndpoint, changes });
  registerConnectorRoutes(http, { service: authorizeConnectors(service, access), access });
  registerVisibleConnectorRoutes(http, { visible: createVisibleConnectors({ db, identity, decisions: options.decisions, gateways: options.gateways }), access });
}
