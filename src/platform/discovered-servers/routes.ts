import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { GatewayParamsSchema } from '../connectors/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { DiscoveredServerListSchema } from './schemas.js';
import type { DiscoveredServerService } from './service.js';

/** `service` is the authorized one (authorizeDiscoveredServers). */
export function registerDiscoveredServerRoutes(app: HttpApp, options: { service: DiscoveredServerService; access: PlatformAccess }): void {
  const { service, access } = options;
  app.get(
    '/v1/gateways/:gateway_id/discovered-servers',
    {
      schema: {
        tags: ['connectors'],
        summary: 'List the MCP servers running in the discovery cluster, with the connectors already holding each endpoint (connectorAdmin, auditor)',
        params: GatewayParamsSchema,
        response: { 200: DiscoveredServerListSchema, 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 503: ErrorSchema },
      },
    },
    (request) => service.list(access.actorOf(request), request.params.gateway_id),
  );
}
