import type { HttpApp } from '../../core/http/app.js';
import { ErrorSchema, ref } from '../../core/http/schemas.js';
import type { PlatformAccess } from '../identity/access.js';
import type { KeyAction } from './operations/change-key-state.js';
import { KeyCreateBodySchema, KeyIdParamsSchema, KeyListSchema, KeyPageSchema, KeySchema, KeysQuerySchema, KeyWithSecretSchema, OwnKeysQuerySchema } from './schemas.js';
import type { KeyService } from './service.js';

export interface KeyRouteOptions {
  /** The authorized service (authorizeKeys). */
  service: KeyService;
  access: PlatformAccess;
}

const ACTIONS: readonly KeyAction[] = ['disable', 'enable', 'revoke'];
const SUMMARIES: Record<KeyAction, string> = { disable: 'Disable', enable: 'Re-enable', revoke: 'Revoke (permanently)' };

export function registerKeyRoutes(app: HttpApp, options: KeyRouteOptions): void {
  const { service, access } = options;
  const tags = ['keys'];
  const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema };

  app.post(
    '/v1/me/keys',
    { schema: { tags, summary: 'Create a key of my own; its secret is shown only in this answer', body: KeyCreateBodySchema, response: { 201: ref(KeyWithSecretSchema), ...errors } } },
    async (request, reply) => reply.code(201).header('cache-control', 'no-store').send(await service.create(access.actorOf(request), request.body)),
  );
  app.get(
    '/v1/me/keys',
    { schema: { tags, summary: 'My keys, newest first', querystring: OwnKeysQuerySchema, response: { 200: KeyListSchema, ...errors } } },
    (request) => service.listOwn(access.actorOf(request), request.query.status),
  );
  app.get(
    '/v1/me/keys/:id',
    { schema: { tags, summary: "One of my keys (another owner's key is 404)", params: KeyIdParamsSchema, response: { 200: ref(KeySchema), ...errors } } },
    (request) => service.getOwn(access.actorOf(request), request.params.id),
  );
  app.post(
    '/v1/me/keys/:id/rotate',
    { schema: { tags, summary: 'Rotate one of my keys: same id, a new secret shown once; the old one works 24 hours more', params: KeyIdParamsSchema, response: { 200: ref(KeyWithSecretSchema), ...errors } } },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await service.rotateOwn(access.actorOf(request), request.params.id)),
  );
  app.get(
    '/v1/keys',
    { schema: { tags, summary: "Every user's keys, newest first (admin, auditor)", querystring: KeysQuerySchema, response: { 200: KeyPageSchema, ...errors } } },
    (request) => service.list(access.actorOf(request), request.query),
  );
  app.get(
    '/v1/keys/:id',
    { schema: { tags, summary: "Any user's key (admin, auditor)", params: KeyIdParamsSchema, response: { 200: ref(KeySchema), ...errors } } },
    (request) => service.get(access.actorOf(request), request.params.id),
  );
  for (const action of ACTIONS) {
    const conflict = action === 'enable' ? { 409: ErrorSchema } : {};
    app.post(
      `/v1/me/keys/:id/${action}`,
      { schema: { tags, summary: `${SUMMARIES[action]} one of my keys`, params: KeyIdParamsSchema, response: { 200: ref(KeySchema), ...errors, ...conflict } } },
      (request) => service.changeOwn(access.actorOf(request), request.params.id, action),
    );
    app.post(
      `/v1/keys/:id/${action}`,
      { schema: { tags, summary: `${SUMMARIES[action]} any user's key (admin)`, params: KeyIdParamsSchema, response: { 200: ref(KeySchema), ...errors, ...conflict } } },
      (request) => service.change(access.actorOf(request), request.params.id, action),
    );
  }
}
