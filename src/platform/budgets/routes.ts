import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { BudgetCollectionSchema, CollectionBodySchema, GroupParamsSchema, LimitsBodySchema, UserParamsSchema } from './schemas.js';
import type { BudgetsService } from './service.js';

export interface BudgetsRouteOptions {
  /** The authorized service (authorizeBudgets). */
  service: BudgetsService;
  access: PlatformAccess;
}

const ifMatch = (request: FastifyRequest): string | undefined => {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
};

export function registerBudgetsRoutes(app: HttpApp, options: BudgetsRouteOptions): void {
  const { service, access } = options;
  const tags = ['budgets'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema };
  const writeErrors = { ...errors, 412: ErrorSchema };
  const collection = { 200: ref(BudgetCollectionSchema) };
  const ifMatchNote = 'optional If-Match: the collection ETag (or *); stale: 412 with the current ETag';

  app.get(
    '/v1/budgets',
    { schema: { tags, summary: 'The budget collection, with its ETag (billingAdmin, auditor)', response: { ...collection, ...errors } } },
    async (request, reply) => {
      const answer = await service.getCollection(access.actorOf(request));
      return reply.header('etag', answer.etag).send(answer.collection);
    },
  );
  app.put(
    '/v1/budgets',
    { schema: { tags, summary: `Replace the whole budget collection; ${ifMatchNote} (billingAdmin)`, body: CollectionBodySchema, response: { ...collection, ...writeErrors } } },
    async (request, reply) => {
      const answer = await service.setCollection(access.actorOf(request), request.body, ifMatch(request));
      return reply.header('etag', answer.etag).send(answer.collection);
    },
  );
  app.put(
    '/v1/budgets/users/:id',
    {
      schema: {
        tags,
        summary: `Set (or, with both limits null, remove) the budget of a user by OIDC subject, percent-encoded; ${ifMatchNote} (billingAdmin)`,
        params: UserParamsSchema,
        body: LimitsBodySchema,
        response: { ...collection, ...writeErrors },
      },
    },
    async (request, reply) => {
      const answer = await service.putUserBudget(access.actorOf(request), request.params.id, request.body, ifMatch(request));
      return reply.header('etag', answer.etag).send(answer.collection);
    },
  );
  app.put(
    '/v1/budgets/groups/:id',
    {
      schema: {
        tags,
        summary: `Set (or, with both limits null, remove) the budget of a directory group; ${ifMatchNote} (billingAdmin)`,
        params: GroupParamsSchema,
        body: LimitsBodySchema,
        response: { ...collection, ...writeErrors },
      },
    },
    async (request, reply) => {
      const answer = await service.putGroupBudget(access.actorOf(request), request.params.id, request.body, ifMatch(request));
      return reply.header('etag', answer.etag).send(answer.collection);
    },
  );
}
