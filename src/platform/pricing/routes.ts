import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { CatalogBodySchema, CatalogSchema, EntryBodySchema, EntryParamsSchema, EntrySchema, VersionListSchema, VersionParamsSchema, VersionSchema } from './schemas.js';
import type { PricingService } from './service.js';

export interface PricingRouteOptions {
  /** The authorized service (authorizePricing). */
  service: PricingService;
  access: PlatformAccess;
}

const ifMatch = (request: FastifyRequest): string | undefined => {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
};

export function registerPricingRoutes(app: HttpApp, options: PricingRouteOptions): void {
  const { service, access } = options;
  const tags = ['pricing'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };
  const writeErrors = { ...errors, 409: ErrorSchema, 412: ErrorSchema, 428: ErrorSchema };
  const entryPath = '/v1/budgets/pricing/entries/:provider/*';
  const noContent = { type: 'null', description: 'done' } as const;

  app.get(
    '/v1/budgets/pricing',
    { schema: { tags, summary: 'The pricing catalog in effect, with its ETag (billingAdmin, auditor)', response: { 200: ref(CatalogSchema), ...errors } } },
    async (request, reply) => {
      const { catalog, etag } = await service.getCatalog(access.actorOf(request));
      return reply.header('etag', etag).send(catalog);
    },
  );
  app.put(
    '/v1/budgets/pricing',
    {
      schema: {
        tags,
        summary: 'Replace the whole catalog: now (200), or staged at a future effective_from (201); If-Match required once a catalog is in effect (billingAdmin)',
        body: CatalogBodySchema,
        response: { 200: ref(CatalogSchema), 201: ref(CatalogSchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      const answer = await service.replaceCatalog(access.actorOf(request), request.body, ifMatch(request));
      if (answer.location !== undefined) void reply.header('location', answer.location);
      return reply.code(answer.status).header('etag', answer.etag).send(answer.catalog);
    },
  );
  app.get(
    '/v1/budgets/pricing/versions',
    { schema: { tags, summary: 'Every pricing version, newest first (billingAdmin, auditor)', response: { 200: VersionListSchema, ...errors } } },
    (request) => service.listVersions(access.actorOf(request)),
  );
  app.get(
    '/v1/budgets/pricing/versions/:effectiveFrom',
    { schema: { tags, summary: 'One pricing version, by its effective_from (billingAdmin, auditor)', params: VersionParamsSchema, response: { 200: ref(VersionSchema), ...errors } } },
    (request) => service.getVersion(access.actorOf(request), request.params.effectiveFrom),
  );
  app.delete(
    '/v1/budgets/pricing/versions/:effectiveFrom',
    {
      schema: {
        tags,
        summary: 'Remove the staged version (one already in effect: 409) (billingAdmin)',
        params: VersionParamsSchema,
        response: { 204: noContent, ...errors, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      await service.deleteStagedVersion(access.actorOf(request), request.params.effectiveFrom);
      return reply.code(204).send();
    },
  );
  app.get(
    entryPath,
    { schema: { tags, summary: "One catalog entry and its ETag; the model is the rest of the path, slashes kept (billingAdmin, auditor)", params: EntryParamsSchema, response: { 200: ref(EntrySchema), ...errors } } },
    async (request, reply) => {
      const { entry, etag } = await service.getEntry(access.actorOf(request), request.params.provider, request.params['*']);
      return reply.header('etag', etag).send(entry);
    },
  );
  app.put(
    entryPath,
    {
      schema: {
        tags,
        summary: 'Create (201) or replace (200) an entry, republishing the catalog; If-Match required (billingAdmin)',
        params: EntryParamsSchema,
        body: EntryBodySchema,
        response: { 200: ref(EntrySchema), 201: ref(EntrySchema), ...writeErrors },
      },
    },
    async (request, reply) => {
      const answer = await service.putEntry(access.actorOf(request), request.params.provider, request.params['*'], request.body, ifMatch(request));
      return reply.code(answer.status).header('etag', answer.etag).send(answer.entry);
    },
  );
  app.delete(
    entryPath,
    {
      schema: {
        tags,
        summary: 'Delete an entry, republishing the catalog: the model is unpriceable from the next request; If-Match required (billingAdmin)',
        params: EntryParamsSchema,
        response: { 204: noContent, ...writeErrors },
      },
    },
    async (request, reply) => {
      const { etag } = await service.deleteEntry(access.actorOf(request), request.params.provider, request.params['*'], ifMatch(request));
      return reply.code(204).header('etag', etag).send();
    },
  );
}
