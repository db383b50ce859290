import type { PlatformContext } from '../context.js';
import type { ClusterSecrets } from '../connector-credentials/index.js';
import type { Gateways } from '../gateways/index.js';
import { authorizeDiscoveredServers } from './authz.js';
import { createDiscoveryCluster } from './cluster.js';
import { registerDiscoveredServerRoutes } from './routes.js';
import { DiscoveredServerSchema } from './schemas.js';
import { createDiscoveredServerService } from './service.js';

/**
 * Discovered MCP servers: GET /v1/gateways/{gateway_id}/discovered-servers. Returns the Secrets of the same
 * cluster for the connectors' cluster_secret references, or undefined without `connectorGateway.discovery`.
 */
export function registerDiscoveredServersFeature(context: PlatformContext, options: { gateways: Gateways; env: Record<string, string | undefined> }): ClusterSecrets | undefined {
  const { http, db, access, config } = context;
  const discovery = config.connectorGateway.discovery;
  const cluster = discovery && createDiscoveryCluster({ config: discovery, env: options.env });
  http.addSchema(DiscoveredServerSchema);
  const service = createDiscoveredServerService({ db, gateways: options.gateways, cluster });
  registerDiscoveredServerRoutes(http, { service: authorizeDiscoveredServers(service, access), access });
  return cluster?.secrets;
}
