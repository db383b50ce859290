import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { AuthenticationHook } from './authentication.js';
import { ConnectorIdParamsSchema, ConnectorStateBodySchema, ConnectorStateSchema, GatewayToolListSchema } from './schemas.js';
import type { ConnectorGatewayService } from './service.js';
import type { ConnectorCaller } from './tools.js';

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The caller the authentication step set (it answered 401 otherwise). */
export function callerOf(request: FastifyRequest): ConnectorCaller {
  if (!request.connectorCaller) throw new Error('the connector gateway authentication step did not run');
  return request.connectorCaller;
}

/** The REST routes of the connector gateway (PLATFORM-API Part 4 §7): a connector's tools and the caller's enablement state. */
export function registerConnectorGatewayRoutes(app: HttpApp, options: { service: ConnectorGatewayService; authenticate: AuthenticationHook }): void {
  const { service, authenticate } = options;
  const tags = ['connector gateway'];
  const one = '/connector-gateway/v1/connectors/:connector_id';
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema };
  const writeErrors = { ...errors, 412: ErrorSchema, 428: ErrorSchema, 501: ErrorSchema };

  app.get(
    `${one}/tools`,
    {
      onRequest: authenticate,
      schema: {
        tags,
        summary: "A connector's tools that the connector policy lets you call, listed by its server now with your credentials (JWT or virtual key)",
        params: ConnectorIdParamsSchema,
        response: { 200: GatewayToolListSchema, ...errors, 502: ErrorSchema },
      },
    },
    (request) => service.tools(callerOf(request), request.params.connector_id),
  );
  app.get(
    `${one}/state`,
    { onRequest: authenticate, schema: { tags, summary: 'Your enablement state of a connector, with its ETag (JWT or virtual key)', params: ConnectorIdParamsSchema, response: { 200: ref(ConnectorStateSchema), ...errors } } },
    async (request, reply) => {
      const { state, etag } = await service.getState(callerOf(request), request.params.connector_id);
      return reply.header('etag', etag).send(state);
    },
  );
  app.put(
    `${one}/state`,
    {
      onRequest: authenticate,
      schema: {
        tags,
        summary: 'Enable or disable a connector for you: creates your connection or sets its enabled flag (If-Match required)',
        params: ConnectorIdParamsSchema,
        body: ConnectorStateBodySchema,
        response: { 200: ref(ConnectorStateSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      const { state, etag } = await service.putState(callerOf(request), request.params.connector_id, request.body, single(request.headers['if-match']));
      return reply.header('etag', etag).send(state);
    },
  );
  app.delete(
    `${one}/state`,
    {
      onRequest: authenticate,
      schema: {
        tags,
        summary: 'Clear your explicit state of a connector: removes your connection, back to the default (enabled, every tool; If-Match required)',
        params: ConnectorIdParamsSchema,
        response: { 204: { type: 'null', description: 'back to the default state' }, ...writeErrors },
      },
    },
    async (request, reply) => {
      await service.deleteState(callerOf(request), request.params.connector_id, single(request.headers['if-match']));
      return reply.code(204).send();
    },
  );
}
