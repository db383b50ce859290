import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { HttpApp } from '../../core/http/app.js';

export interface PublicRouteOptions {
  version: string;
  metrics: Registry;
  /** Resolves when the service can serve: database reachable, migrations applied. Rejects with the reason. */
  readiness(): Promise<void>;
}

const Status = Type.Object({ status: Type.String() });

export function registerPublicRoutes(app: HttpApp, options: PublicRouteOptions): void {
  const tags = ['public'];
  app.get('/health', { schema: { tags, summary: 'Liveness', response: { 200: Status } } }, () => ({ status: 'ok' }));
  app.get(
    '/readiness',
    { schema: { tags, summary: 'Readiness: 503 while the database is unreachable or migrations are pending', response: { 200: Status, 503: Type.Object({ status: Type.String(), error: Type.String() }) } } },
    async (_request, reply) => {
      try {
        await options.readiness();
        return { status: 'ready' };
      } catch (error) {
        return reply.code(503).send({ status: 'not ready', error: (error as Error).message });
      }
    },
  );
  app.get('/version', { schema: { tags, summary: 'Version of this server', response: { 200: Type.Object({ version: Type.String(), apiVersion: Type.String() }) } } }, () => ({
    version: options.version,
    apiVersion: 'v0.1',
  }));
  app.get('/metrics', { schema: { tags, summary: 'Prometheus metrics', hide: true } }, async (_request, reply) => {
    const body = await options.metrics.metrics();
    return reply.type(options.metrics.contentType).send(body);
  });
  app.get('/openapi.json', { schema: { tags, summary: 'This OpenAPI document', hide: true } }, () => app.swagger());
}
