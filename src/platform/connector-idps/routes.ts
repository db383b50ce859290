import { InvalidInputError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { PageQuerySchema } from '../directory/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { IdentityProviderBodySchema, IdentityProviderPageSchema, IdentityProviderSchema, ProviderIdParamsSchema, READ_ONLY_FIELDS } from './schemas.js';
import type { IdentityProviderService } from './service.js';

/** A read-only field is refused as such, before the schema would call it merely unknown. */
function readOnlyProblem(body: unknown): InvalidInputError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const field = (Object.keys(READ_ONLY_FIELDS) as (keyof typeof READ_ONLY_FIELDS)[]).find((name) => name in body);
  return field === undefined ? undefined : new InvalidInputError(`body.${field}: read-only (${READ_ONLY_FIELDS[field]}); leave it out`);
}

/** `service` is the authorized one (authorizeIdentityProviders). */
export function registerIdentityProviderRoutes(app: HttpApp, options: { service: IdentityProviderService; access: PlatformAccess }): void {
  const { service, access } = options;
  const tags = ['connectors: identity providers'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };

  app.post(
    '/v1/connector-identity-providers',
    {
      preValidation: (request, _reply, done) => done(readOnlyProblem(request.body)),
      schema: { tags, summary: 'Create an identity provider for connectors (connectorAdmin)', body: IdentityProviderBodySchema, response: { 201: ref(IdentityProviderSchema), ...errors, 409: ErrorSchema } },
    },
    async (request, reply) => reply.code(201).send(await service.create(access.actorOf(request), request.body)),
  );
  app.get(
    '/v1/connector-identity-providers',
    { schema: { tags, summary: 'List identity providers by name then id (connectorAdmin, auditor)', querystring: PageQuerySchema, response: { 200: IdentityProviderPageSchema, ...errors } } },
    (request) => service.list(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/connector-identity-providers/:id',
    { schema: { tags, summary: 'Get an identity provider (connectorAdmin, auditor)', params: ProviderIdParamsSchema, response: { 200: ref(IdentityProviderSchema), ...errors } } },
    (request) => service.get(access.actorOf(request), request.params.id),
  );
  app.put(
    '/v1/connector-identity-providers/:id',
    {
      preValidation: (request, _reply, done) => done(readOnlyProblem(request.body)),
      schema: {
        tags,
        summary: 'Replace an identity provider as a whole (connectorAdmin)',
        params: ProviderIdParamsSchema,
        body: IdentityProviderBodySchema,
        response: { 200: ref(IdentityProviderSchema), ...errors, 409: ErrorSchema },
      },
    },
    (request) => service.replace(access.actorOf(request), request.params.id, request.body),
  );
  app.delete(
    '/v1/connector-identity-providers/:id',
    { schema: { tags, summary: 'Delete an identity provider (connectorAdmin)', params: ProviderIdParamsSchema, response: { 204: { type: 'null', description: 'deleted' }, ...errors } } },
    async (request, reply) => {
      await service.delete(access.actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
