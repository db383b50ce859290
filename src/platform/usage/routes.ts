import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import {
  ChargePageSchema,
  ChargesQuerySchema,
  ExportQuerySchema,
  OwnChargesQuerySchema,
  OwnSeriesQuerySchema,
  OwnUsageEventsQuerySchema,
  SeriesQuerySchema,
  SeriesSchema,
  UsageEventPageSchema,
  UsageEventsQuerySchema,
} from './schemas.js';
import type { UsageService } from './service.js';

export interface UsageRouteOptions {
  /** The authorized service (authorizeUsage). */
  service: UsageService;
  access: PlatformAccess;
}

const Csv = {
  description: 'bucket_start, group_key (or one column per dimension, in group_by order), charged_usd; RFC 4180, CRLF',
  headers: {
    'x-spend-export-from': Type.String({ format: 'date-time', description: 'the served window: its start' }),
    'x-spend-export-to': Type.String({ format: 'date-time', description: 'the served window: its end (exclusive)' }),
  },
  // typed as the stream the route sends; documented as text
  content: { 'text/csv; charset=utf-8': { schema: Type.Unsafe<Readable>({ type: 'string' }) } },
};

export function registerUsageRoutes(app: HttpApp, options: UsageRouteOptions): void {
  const { service, access } = options;
  const tags = ['usage'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema };

  app.get(
    '/v1/charges',
    { schema: { tags, summary: "Every user's charges, newest first (billingAdmin, auditor)", querystring: ChargesQuerySchema, response: { 200: ChargePageSchema, ...errors } } },
    (request) => service.listCharges(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/me/charges',
    { schema: { tags, summary: 'My charges (auth_subject = my OIDC subject), newest first', querystring: OwnChargesQuerySchema, response: { 200: ChargePageSchema, ...errors } } },
    (request) => service.listOwnCharges(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/usage-events',
    { schema: { tags, summary: "Every user's LLM gateway usage events, newest first (billingAdmin, auditor)", querystring: UsageEventsQuerySchema, response: { 200: UsageEventPageSchema, ...errors } } },
    (request) => service.listUsageEvents(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/me/usage-events',
    { schema: { tags, summary: 'My LLM gateway usage events, newest first', querystring: OwnUsageEventsQuerySchema, response: { 200: UsageEventPageSchema, ...errors } } },
    (request) => service.listOwnUsageEvents(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/spend/series',
    { schema: { tags, summary: 'Charged USD per UTC day, every day of the window (billingAdmin, auditor)', querystring: SeriesQuerySchema, response: { 200: ref(SeriesSchema), ...errors } } },
    (request) => service.series(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/me/spend/series',
    { schema: { tags, summary: 'My user charges in USD per UTC day, every day of the window', querystring: OwnSeriesQuerySchema, response: { 200: ref(SeriesSchema), ...errors } } },
    (request) => service.ownSeries(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/spend/export',
    {
      schema: {
        tags,
        summary: 'Spend per bucket and group as CSV, streamed (billingAdmin, auditor; 404 unless experiments.spendExport)',
        querystring: ExportQuerySchema,
        response: { 200: Csv, ...errors, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { from, to, body } = await service.exportSpend(access.actorOf(request), request.query);
      return reply
        .header('x-spend-export-from', from.toISOString())
        .header('x-spend-export-to', to.toISOString())
        .type('text/csv; charset=utf-8')
        .send(Readable.from(body, { objectMode: false, highWaterMark: 64 * 1024 }));
    },
  );
}
