import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { PageQuerySchema } from '../directory/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { ConnectionPageSchema, ConnectionParamsSchema, ConnectionSchema, ConnectorConnectionsParamsSchema, CreateConnectionBodySchema, EnabledBodySchema, ToolsBodySchema } from './schemas.js';
import type { ConnectionService } from './service.js';

/** `service` is the authorized one (authorizeConnections). */
export function registerConnectionRoutes(app: HttpApp, options: { service: ConnectionService; access: PlatformAccess }): void {
  const { service, access } = options;
  const tags = ['connections'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };
  const one = { 200: ref(ConnectionSchema), ...errors };

  app.get(
    '/v1/gateways/:gateway_id/connectors/:id/connections',
    { schema: { tags, summary: "List a connector's connections by created_at then id (connectorAdmin, auditor)", params: ConnectorConnectionsParamsSchema, querystring: PageQuerySchema, response: { 200: ConnectionPageSchema, ...errors } } },
    (request) => service.listOfConnector(access.actorOf(request), request.params.gateway_id, request.params.id, request.query),
  );
  app.get('/v1/connections/:id', { schema: { tags, summary: 'Get any connection (connectorAdmin, auditor)', params: ConnectionParamsSchema, response: one } }, (request) =>
    service.get(access.actorOf(request), request.params.id),
  );
  app.post(
    '/v1/me/connections',
    {
      schema: {
        tags,
        summary: 'Create my connection to a connector visible to me (one per connector: 409 for a second)',
        body: CreateConnectionBodySchema,
        response: { 201: ref(ConnectionSchema), ...errors, 409: ErrorSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(access.actorOf(request), request.body)),
  );
  app.get('/v1/me/connections', { schema: { tags, summary: 'List my connections by created_at then id', querystring: PageQuerySchema, response: { 200: ConnectionPageSchema, ...errors } } }, (request) =>
    service.listMine(access.actorOf(request), request.query),
  );
  app.put(
    '/v1/me/connections/:id/enabled',
    { schema: { tags, summary: 'Enable or disable my connection (enabling needs the connector visible to me)', params: ConnectionParamsSchema, body: EnabledBodySchema, response: one } },
    (request) => service.setEnabled(access.actorOf(request), request.params.id, request.body),
  );
  app.put(
    '/v1/me/connections/:id/tools',
    {
      schema: {
        tags,
        summary: "Set my connection's narrowing: every tool but the listed ones (tools_enabled_by_default true) or only the listed ones (false)",
        params: ConnectionParamsSchema,
        body: ToolsBodySchema,
        response: one,
      },
    },
    (request) => service.setTools(access.actorOf(request), request.params.id, request.body),
  );
  app.delete(
    '/v1/me/connections/:id',
    { schema: { tags, summary: 'Delete my connection (the connector is back to the default: enabled, every tool)', params: ConnectionParamsSchema, response: { 204: { type: 'null', description: 'deleted' }, ...errors } } },
    async (request, reply) => {
      await service.delete(access.actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
