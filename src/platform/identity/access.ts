import type { FastifyRequest } from 'fastify';
import { hasRole } from '../../core/auth/claims.js';
import { ForbiddenError } from '../../core/errors.js';
import { PLATFORM_ROLES, type PlatformConfig, type PlatformRole } from '../config.js';
import { ANONYMOUS_SUBJECT, type Actor } from './actor.js';

/** The roles rules, in one place: which roles a token's claims grant, and the checks services wrap themselves in. */
export interface PlatformAccess {
  actorOf(request: FastifyRequest): Actor;
  /** Passes when the actor holds `admin` or any of `roles`; else a 403 naming them. */
  require(actor: Actor, roles: readonly PlatformRole[], action: string): void;
}

/** Every read of the enterprise manager: any role at all. */
export const READ_ROLES: readonly PlatformRole[] = PLATFORM_ROLES;

export function createPlatformAccess(auth: PlatformConfig['auth']): PlatformAccess {
  const everyRole: ReadonlySet<PlatformRole> = new Set(PLATFORM_ROLES);
  const roleMaps = auth.authz.roles;
  const rolesOf = (claims: Record<string, unknown>): ReadonlySet<PlatformRole> => new Set(PLATFORM_ROLES.filter((role) => hasRole(roleMaps[role], claims)));

  return {
    actorOf(request) {
      const { caller } = request;
      if (auth.mode === 'anonymous' || caller.kind === 'anonymous') {
        return { kind: 'anonymous', issuer: null, subject: ANONYMOUS_SUBJECT, claims: {}, provider: null, roles: auth.mode === 'anonymous' ? everyRole : new Set(), requestId: request.id };
      }
      const issuer = typeof caller.claims.iss === 'string' ? caller.claims.iss : null;
      return { kind: 'user', issuer, subject: caller.subject, claims: caller.claims, provider: caller.provider ?? null, roles: rolesOf(caller.claims), requestId: request.id };
    },
    require(actor, roles, action) {
      if (actor.roles.has('admin') || roles.some((role) => actor.roles.has(role))) return;
      const needed = ['admin', ...roles.filter((role) => role !== 'admin')];
      throw new ForbiddenError(`${action} needs the role ${needed.join(' or ')}`);
    },
  };
}
