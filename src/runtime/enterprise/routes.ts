import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema } from '../../core/http/schemas.js';
import { API_PREFIX } from '../workloads/routes.js';
import { EnterpriseSetSchema, EnterpriseStatusSchema } from './schemas.js';
import type { EnterpriseService } from './service.js';

const tags = ['enterprise'];

/** The enterprise configuration this runtime applies: which platform, and what it enforces now. */
export function registerEnterpriseRoutes(app: HttpApp, deps: { enterprise: EnterpriseService }): void {
  const { enterprise } = deps;
  const base = `${API_PREFIX}/enterprise`;
  app.get(base, { schema: { tags, summary: 'Status of the enterprise configuration: the platform, the directives applied, the degraded mode and why', response: { 200: EnterpriseStatusSchema } } }, () =>
    enterprise.status(),
  );
  app.put(
    base,
    {
      schema: {
        tags,
        summary: 'Use the enterprise configuration of a platform: discovered from its base URL, or its configuration URL; kept only once a valid envelope arrived (else 400 saying why)',
        body: EnterpriseSetSchema,
        response: { 200: EnterpriseStatusSchema, 400: ErrorSchema },
      },
    },
    (request) => enterprise.set(request.body),
  );
  app.delete(base, { schema: { tags, summary: 'Stop applying an enterprise configuration', response: { 204: Type.Null() } } }, async (_request, reply) => {
    await enterprise.unset();
    return reply.code(204).send(null);
  });
  app.post(
    `${base}/refresh`,
    { schema: { tags, summary: 'Fetch the enterprise configuration now (a failure keeps the last valid one)', response: { 200: EnterpriseStatusSchema, 404: ErrorSchema } } },
    () => enterprise.refresh(),
  );
}
