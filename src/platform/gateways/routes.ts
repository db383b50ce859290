import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import type { PlatformConfig } from '../config.js';
import type { PlatformAccess } from '../identity/access.js';
import { publicBaseUrl } from '../identity/authentication.js';
import { GatewayListSchema } from './schemas.js';
import type { GatewayService } from './service.js';

/** `service` is the authorized one (authorizeGateways). */
export function registerGatewayRoutes(app: HttpApp, options: { service: GatewayService; access: PlatformAccess; config: PlatformConfig }): void {
  const { service, access, config } = options;
  app.get(
    '/v1/gateways',
    {
      schema: {
        tags: ['connectors: gateways'],
        summary: 'The connector gateways and their MCP endpoints (any authenticated caller)',
        response: { 200: GatewayListSchema, 401: ErrorSchema },
      },
    },
    (request) => service.list(access.actorOf(request), publicBaseUrl(config, request)),
  );
}
