import { InvalidInputError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { PageQuerySchema } from '../directory/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { ConnectorBodySchema, ConnectorPageSchema, ConnectorParamsSchema, ConnectorSchema, GatewayParamsSchema, READ_ONLY_FIELDS } from './schemas.js';
import type { ConnectorService } from './service.js';

/** A read-only field is refused as such, before the schema would call it merely unknown. */
function readOnlyProblem(body: unknown): InvalidInputError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const field = (Object.keys(READ_ONLY_FIELDS) as (keyof typeof READ_ONLY_FIELDS)[]).find((name) => name in body);
  if (field !== undefined) return new InvalidInputError(`body.${field}: read-only (${READ_ONLY_FIELDS[field]}); leave it out`);
  const exchange = (body as { auth?: { token_exchange?: unknown } }).auth?.token_exchange;
  if (typeof exchange === 'object' && exchange !== null && 'client_secret_configured' in exchange) {
    return new InvalidInputError('body.auth.token_exchange.client_secret_configured: read-only (true when client_secret is set); send client_secret instead');
  }
  return undefined;
}

/** `service` is the authorized one (authorizeConnectors). */
export function registerConnectorRoutes(app: HttpApp, options: { service: ConnectorService; access: PlatformAccess }): void {
  const { service, access } = options;
  const tags = ['connectors'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };
  const collection = '/v1/gateways/:gateway_id/connectors';
  const one = `${collection}/:id`;
  const preValidation = (request: { body: unknown }, _reply: unknown, done: (error?: Error) => void) => done(readOnlyProblem(request.body));

  app.post(
    collection,
    {
      preValidation,
      schema: {
        tags,
        summary: 'Create a connector on a gateway; its endpoint is checked with an MCP initialize (connectorAdmin)',
        params: GatewayParamsSchema,
        body: ConnectorBodySchema,
        response: { 201: ref(ConnectorSchema), ...errors, 409: ErrorSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(access.actorOf(request), request.params.gateway_id, request.body)),
  );
  app.get(
    collection,
    { schema: { tags, summary: "List a gateway's connectors by name then id (connectorAdmin, auditor)", params: GatewayParamsSchema, querystring: PageQuerySchema, response: { 200: ConnectorPageSchema, ...errors } } },
    (request) => service.list(access.actorOf(request), request.params.gateway_id, request.query),
  );
  app.get(
    one,
    { schema: { tags, summary: 'Get a connector (connectorAdmin, auditor)', params: ConnectorParamsSchema, response: { 200: ref(ConnectorSchema), ...errors } } },
    (request) => service.get(access.actorOf(request), request.params.gateway_id, request.params.id),
  );
  app.put(
    one,
    {
      preValidation,
      schema: {
        tags,
        summary: 'Replace a connector as a whole; origin and source_* are kept (connectorAdmin)',
        params: ConnectorParamsSchema,
        body: ConnectorBodySchema,
        response: { 200: ref(ConnectorSchema), ...errors, 409: ErrorSchema },
      },
    },
    (request) => service.replace(access.actorOf(request), request.params.gateway_id, request.params.id, request.body),
  );
  app.delete(
    one,
    { schema: { tags, summary: 'Delete a connector (connectorAdmin)', params: ConnectorParamsSchema, response: { 204: { type: 'null', description: 'deleted' }, ...errors } } },
    async (request, reply) => {
      await service.delete(access.actorOf(request), request.params.gateway_id, request.params.id);
      return reply.code(204).send();
    },
  );
}
