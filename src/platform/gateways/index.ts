import type { PlatformContext } from '../context.js';
import { authorizeGateways } from './authz.js';
import { createGateways, type Gateways } from './gateways.js';
import { registerGatewayRoutes } from './routes.js';
import { GatewaySchema } from './schemas.js';
import { createGatewayService } from './service.js';

export { mcpPathOf, type ConfiguredGateway, type Gateways } from './gateways.js';

/** The configured connector gateways: GET /v1/gateways, and the lookup the features of a gateway check ids with. */
export function registerGatewaysFeature(context: PlatformContext): Gateways {
  const { http, config, access, identity } = context;
  const gateways = createGateways(config.connectorGateway);
  http.addSchema(GatewaySchema);
  registerGatewayRoutes(http, { service: authorizeGateways(createGatewayService({ gateways }), identity), access, config });
  return gateways;
}
