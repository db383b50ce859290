import { Type } from '@sinclair/typebox';
import type { Caller } from '../../core/auth/caller.js';
import { UnauthenticatedError } from '../../core/errors.js';
import type { HttpApp } from '../../core/http/app.js';
import { adminErrors as errors } from '../http/admin-routes.js';
import { callerOf } from './caller.js';

/** `identity` tells who the caller is; undefined in anonymous mode, where /v1/me answers 401. */
export function registerIdentityRoutes(app: HttpApp, identity: ((caller: Caller) => { subject: string; roles: string[] }) | undefined): void {
  app.get(
    '/v1/me',
    { schema: { tags: ['identity'], summary: 'Who the caller is', response: { 200: Type.Object({ subject: Type.String(), roles: Type.Array(Type.String()) }), ...errors } } },
    (request) => {
      if (!identity) throw new UnauthenticatedError('the registry runs in anonymous mode: there is no caller identity');
      return identity(callerOf(request));
    },
  );
}
