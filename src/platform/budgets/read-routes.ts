import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import {
  BreakdownQuerySchema,
  BreakdownSchema,
  CellListSchema,
  CellsQuerySchema,
  GroupSliceQuerySchema,
  OwnSummarySchema,
  SliceSchema,
  SubjectParamsSchema,
  UserSliceQuerySchema,
} from './read-schemas.js';
import type { BudgetReadService } from './read-service.js';

export interface BudgetReadRouteOptions {
  /** The authorized service (authorizeBudgetReads). */
  service: BudgetReadService;
  access: PlatformAccess;
}

export function registerBudgetReadRoutes(app: HttpApp, options: BudgetReadRouteOptions): void {
  const { service, access } = options;
  const tags = ['budgets'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema };
  const withNotFound = { ...errors, 404: ErrorSchema };

  app.get(
    '/v1/budgets/cells',
    {
      schema: {
        tags,
        summary: 'Budget cells of the periods containing `at`: budgeted groups, users with own limits, users on the default with a charge or reservation (billingAdmin, auditor)',
        querystring: CellsQuerySchema,
        response: { 200: CellListSchema, ...errors },
      },
    },
    (request) => service.listCells(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/budgets/breakdown',
    {
      schema: {
        tags,
        summary: "The current cell's spend by model, provider and user (billingAdmin, auditor)",
        querystring: BreakdownQuerySchema,
        response: { 200: ref(BreakdownSchema), ...withNotFound },
      },
    },
    (request) => service.breakdown(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/budgets/groups/:id/slice',
    {
      schema: {
        tags,
        summary: "A group's current cell by user or model (billingAdmin, auditor)",
        params: SubjectParamsSchema,
        querystring: GroupSliceQuerySchema,
        response: { 200: ref(SliceSchema), ...withNotFound },
      },
    },
    (request) => service.groupSlice(access.actorOf(request), request.params.id, request.query),
  );
  app.get(
    '/v1/budgets/users/:id/slice',
    {
      schema: {
        tags,
        summary: "A user's current cell by model, or what the user was charged to each budgeted group within retention (billingAdmin, auditor)",
        params: SubjectParamsSchema,
        querystring: UserSliceQuerySchema,
        response: { 200: ref(SliceSchema), ...withNotFound },
      },
    },
    (request) => service.userSlice(access.actorOf(request), request.params.id, request.query),
  );
  app.get(
    '/v1/me/budgets',
    { schema: { tags, summary: 'My current budgets: my cells and my groups\', with my contribution to each', response: { 200: ref(OwnSummarySchema), ...errors } } },
    (request) => service.ownSummary(access.actorOf(request)),
  );
}
