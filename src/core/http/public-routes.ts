import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import { DomainError } from '../errors.js';
import type { HttpApp } from './app.js';
import { ErrorSchema } from './schemas.js';

export interface PublicRouteOptions {
  version: string;
  /** The API version this service speaks, reported by /version. */
  apiVersion: string;
  metrics: Registry;
  /**
   * Resolves when the service can serve: database reachable, migrations applied. Rejects with the
   * reason; a DomainError's message is shown to the caller, any other error only in the log.
   */
  readiness(): Promise<void>;
}

const Status = Type.Object({ status: Type.String() });

/** /health, /readiness, /version, /metrics and /openapi.json: the same on every service. */
export function registerPublicRoutes(app: HttpApp, options: PublicRouteOptions): void {
  const tags = ['public'];
  app.get('/health', { schema: { tags, summary: 'Liveness', response: { 200: Status } } }, () => ({ status: 'ok' }));
  app.get(
    '/readiness',
    { schema: { tags, summary: 'Readiness: 503 while the database is unreachable or migrations are pending', response: { 200: Status, 503: ErrorSchema } } },
    async (request, reply) => {
      try {
        await options.readiness();
        return { status: 'ready' };
      } catch (error) {
        // a 5xx never carries internal detail: a driver's message may name hosts and users, so only a
        // domain error's message (written for people) is shown; the rest goes to the log
        request.log.warn({ err: error }, 'not ready');
        const reason = error instanceof DomainError ? error.message : 'the database is unreachable or migrations are pending';
        return reply.code(503).send({ error: `not ready: ${reason}` });
      }
    },
  );
  app.get('/version', { schema: { tags, summary: 'Version of this server', response: { 200: Type.Object({ version: Type.String(), apiVersion: Type.String() }) } } }, () => ({
    version: options.version,
    apiVersion: options.apiVersion,
  }));
  app.get('/metrics', { schema: { tags, summary: 'Prometheus metrics', hide: true } }, async (_request, reply) => {
    const body = await options.metrics.metrics();
    return reply.type(options.metrics.contentType).send(body);
  });
  app.get('/openapi.json', { schema: { tags, summary: 'This OpenAPI document', hide: true } }, () => app.swagger());
}
