import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import {
  ActivityPageSchema,
  ActivityQuerySchema,
  ConnectorUsageSchema,
  ExportPageSchema,
  ExportQuerySchema,
  IdParamsSchema,
  SummarySchema,
  TimeseriesQuerySchema,
  TimeseriesSchema,
  TopConnectorsSchema,
  TopQuerySchema,
  TopToolsSchema,
  UserUsageSchema,
  UserWindowQuerySchema,
  WindowQuerySchema,
} from './schemas.js';
import type { ToolUsageService } from './service.js';

/** `service` is the authorized one (authorizeToolUsage). */
export function registerToolUsageRoutes(app: HttpApp, options: { service: ToolUsageService; access: PlatformAccess }): void {
  const { service, access } = options;
  const tags = ['connectors: tool-call usage'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema };
  const R = '(connectorAdmin, auditor)';

  app.get(
    '/v1/tool-usage/connectors/:id',
    { schema: { tags, summary: `Calls of a connector, and per group of the callers in buckets ${R}`, params: IdParamsSchema, querystring: WindowQuerySchema, response: { 200: ConnectorUsageSchema, ...errors } } },
    (request) => service.connectorUsage(access.actorOf(request), request.params.id, request.query),
  );
  app.get(
    '/v1/me/tool-usage/calls',
    { schema: { tags, summary: 'My tool calls through one connector, newest first', querystring: ActivityQuerySchema, response: { 200: ActivityPageSchema, ...errors } } },
    (request) => service.myActivity(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/tool-usage/export',
    { schema: { tags, summary: `The hash-chained records by sequence, with the signed checkpoints of the page ${R}`, querystring: ExportQuerySchema, response: { 200: ExportPageSchema, ...errors } } },
    (request) => service.exportRecords(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/tool-usage/top-connectors',
    { schema: { tags, summary: `Connectors by calls, most first ${R}`, querystring: TopQuerySchema, response: { 200: TopConnectorsSchema, ...errors } } },
    (request) => service.topConnectors(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/tool-usage/top-tools',
    { schema: { tags, summary: `Tools by calls, most first ${R}`, querystring: TopQuerySchema, response: { 200: TopToolsSchema, ...errors } } },
    (request) => service.topTools(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/tool-usage/summary',
    { schema: { tags, summary: `Calls and distinct users ${R}`, querystring: WindowQuerySchema, response: { 200: SummarySchema, ...errors } } },
    (request) => service.summary(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/tool-usage/timeseries',
    { schema: { tags, summary: `Calls per bucket, zero-filled, optionally broken down by a dimension ${R}`, querystring: TimeseriesQuerySchema, response: { 200: TimeseriesSchema, ...errors } } },
    (request) => service.timeseries(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/tool-usage/users/:id',
    { schema: { tags, summary: `A user's calls per connector and tool, and in buckets ${R}`, params: IdParamsSchema, querystring: UserWindowQuerySchema, response: { 200: UserUsageSchema, ...errors } } },
    (request) => service.userUsage(access.actorOf(request), request.params.id, request.query),
  );
}
