import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import { PageQuerySchema } from '../directory/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { CreateManagedSecretBodySchema, ManagedSecretPageSchema, ManagedSecretSchema, ReplaceManagedSecretBodySchema, SecretIdParamsSchema } from './schemas.js';
import type { ManagedSecretService } from './service.js';

/** `service` is the authorized one (authorizeManagedSecrets). */
export function registerManagedSecretRoutes(app: HttpApp, options: { service: ManagedSecretService; access: PlatformAccess }): void {
  const { service, access } = options;
  const tags = ['connectors: managed secrets'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };

  app.post(
    '/v1/managed-secrets',
    {
      schema: {
        tags,
        summary: 'Create a managed secret (connectorAdmin); its value is stored encrypted and never returned',
        body: CreateManagedSecretBodySchema,
        response: { 201: ref(ManagedSecretSchema), ...errors, 409: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(access.actorOf(request), request.body)),
  );
  app.get(
    '/v1/managed-secrets',
    { schema: { tags, summary: 'List managed secrets by name then id (connectorAdmin, auditor)', querystring: PageQuerySchema, response: { 200: ManagedSecretPageSchema, ...errors } } },
    (request) => service.list(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/managed-secrets/:id',
    { schema: { tags, summary: 'Get a managed secret, without its value (connectorAdmin, auditor)', params: SecretIdParamsSchema, response: { 200: ref(ManagedSecretSchema), ...errors } } },
    (request) => service.get(access.actorOf(request), request.params.id),
  );
  app.put(
    '/v1/managed-secrets/:id',
    {
      schema: {
        tags,
        summary: "Replace a managed secret's value (connectorAdmin)",
        params: SecretIdParamsSchema,
        body: ReplaceManagedSecretBodySchema,
        response: { 200: ref(ManagedSecretSchema), ...errors, 503: ErrorSchema },
      },
    },
    (request) => service.replace(access.actorOf(request), request.params.id, request.body),
  );
  app.delete(
    '/v1/managed-secrets/:id',
    {
      schema: {
        tags,
        summary: 'Delete a managed secret no identity provider or connector references (connectorAdmin)',
        params: SecretIdParamsSchema,
        response: { 204: { type: 'null', description: 'deleted' }, ...errors, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      await service.delete(access.actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}
