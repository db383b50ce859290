import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { PageQuerySchema } from '../directory/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { ConnectorPageSchema, ConnectorParamsSchema, ConnectorSchema, GatewayParamsSchema } from './schemas.js';
import type { VisibleConnectors } from './visible.js';

/** /v1/me/gateways/{gateway_id}/connectors: the connectors visible to the caller (own data). */
export function registerVisibleConnectorRoutes(app: HttpApp, options: { visible: VisibleConnectors; access: PlatformAccess }): void {
  const { visible, access } = options;
  const tags = ['connectors'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema };
  const collection = '/v1/me/gateways/:gateway_id/connectors';
  app.get(
    collection,
    { schema: { tags, summary: "List the gateway's connectors visible to me (their policy lets me use them), by name then id", params: GatewayParamsSchema, querystring: PageQuerySchema, response: { 200: ConnectorPageSchema, ...errors } } },
    (request) => visible.list(access.actorOf(request), request.params.gateway_id, request.query),
  );
  app.get(
    `${collection}/:id`,
    { schema: { tags, summary: 'Get a connector visible to me (403 when it exists but its policy does not let me use it)', params: ConnectorParamsSchema, response: { 200: ref(ConnectorSchema), ...errors, 403: ErrorSchema } } },
    (request) => visible.get(access.actorOf(request), request.params.gateway_id, request.params.id),
  );
}
