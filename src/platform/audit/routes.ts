import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import { AuditEventSchema, AuditQuerySchema } from './schemas.js';
import type { AuditTrail } from './service.js';

/** `audit` is the authorized trail (authorizeAudit). */
export function registerAuditRoutes(app: HttpApp, options: { audit: AuditTrail; access: PlatformAccess }): void {
  const { audit, access } = options;
  app.get(
    '/v1/audit-events',
    {
      schema: {
        tags: ['audit'],
        summary: 'The audit trail of every write, newest first (admin, auditor)',
        querystring: AuditQuerySchema,
        response: { 200: Type.Object({ events: Type.Array(ref(AuditEventSchema)), next_cursor: Type.Optional(Type.String()) }), 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema },
      },
    },
    (request) => audit.list(access.actorOf(request), request.query),
  );
}
