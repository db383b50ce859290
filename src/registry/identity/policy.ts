import type { Caller } from '../../core/auth/caller.js';
import { hasRole, isSubset, isVisible, type ClaimMap } from '../../core/auth/claims.js';
import { ForbiddenError, UnauthenticatedError } from '../../core/errors.js';
import type { RegistryConfig } from '../config.js';
import type { VisibilityRule } from '../catalog/read-model.js';

export type Role = 'superAdmin' | 'manageSources' | 'manageRegistries' | 'manageEntries';
export const ROLES: readonly Role[] = ['superAdmin', 'manageSources', 'manageRegistries', 'manageEntries'];

export type AuthMode = 'anonymous' | 'auth-only' | 'full';

/**
 * Every authorization decision of the registry, from the configured mode and roles: in anonymous and
 * auth-only modes every check passes; in full mode roles and the claims rules apply, and superAdmin
 * passes them all.
 */
export interface AccessPolicy {
  mode: AuthMode;
  /** Throws 403 unless the caller has the role (or is superAdmin). */
  requireRole(caller: Caller, role: Exclude<Role, 'superAdmin'>): void;
  /** The visibility rule: may the caller see a resource with these claims? */
  canSee(caller: Caller, claims: ClaimMap): boolean;
  /** The subset rule: may the caller give a resource these claims? */
  canGrant(caller: Caller, claims: ClaimMap): boolean;
  /** The read-model filter for the caller; undefined when the caller sees everything. */
  visibility(caller: Caller): VisibilityRule | undefined;
  rolesOf(caller: Caller): Role[];
}

export function createAccessPolicy(auth: RegistryConfig['auth']): AccessPolicy {
  const mode: AuthMode = auth.mode === 'anonymous' ? 'anonymous' : auth.authz ? 'full' : 'auth-only';
  const roles = auth.authz?.roles ?? {};
  const claimsOf = (caller: Caller) => (caller.kind === 'user' ? caller.claims : {});
  const isSuperAdmin = (caller: Caller) => mode !== 'full' || hasRole(roles.superAdmin, claimsOf(caller));

  const policy: AccessPolicy = {
    mode,
    requireRole(caller, role) {
      if (mode === 'anonymous') return;
      if (caller.kind !== 'user') throw new UnauthenticatedError();
      if (isSuperAdmin(caller) || hasRole(roles[role], caller.claims)) return;
      throw new ForbiddenError(`this needs the ${role} role, which your token's claims do not grant`);
    },
    canSee: (caller, claims) => isSuperAdmin(caller) || isVisible(claims, claimsOf(caller)),
    canGrant: (caller, claims) => isSuperAdmin(caller) || isSubset(claims, claimsOf(caller)),
    visibility(caller) {
      if (isSuperAdmin(caller)) return undefined;
      const claims = claimsOf(caller);
      return { callerClaims: claims, allows: (resource) => isVisible(resource, claims) };
    },
    rolesOf(caller) {
      if (mode === 'anonymous' || caller.kind !== 'user') return [];
      if (mode === 'auth-only') return [...ROLES];
      return ROLES.filter((role) => hasRole(roles[role], caller.claims));
    },
  };
  return policy;
}
