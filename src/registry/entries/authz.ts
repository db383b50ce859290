import { ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { AccessPolicy } from '../identity/policy.js';
import { notASubset } from '../identity/visibility.js';
import type { Claims } from '../tables.js';
import { readPublishedRecord, type EntriesService } from './service.js';

export function authorizeEntries(inner: EntriesService, policy: AccessPolicy): EntriesService {
  const authenticated = policy.mode !== 'anonymous';
  return {
    managedSourceClaims: () => inner.managedSourceClaims(),
    async publish(caller, body) {
      readPublishedRecord(body);
      const claims: Claims = body.claims ?? {};
      if (authenticated && Object.keys(claims).length === 0) {
        throw new InvalidInputError('claims: required when authentication is on; give the claims that decide who may see this entry');
      }
      policy.requireRole(caller, 'manageEntries');
      if (!policy.canGrant(caller, claims)) throw notASubset();
      const managed = await inner.managedSourceClaims();
      if (managed !== undefined && !policy.canSee(caller, managed)) throw new ForbiddenError('your token does not give access to the managed source');
      await inner.publish(caller, body);
    },
    async deleteVersion(caller, type, name, version) {
      policy.requireRole(caller, 'manageEntries');
      if (!policy.canSee(caller, await inner.getClaims(caller, type, name))) throw new NotFoundError(`no published ${type} named "${name}"`);
      await inner.deleteVersion(caller, type, name, version);
    },
    async getClaims(caller, type, name) {
      policy.requireRole(caller, 'manageEntries');
      const claims = await inner.getClaims(caller, type, name);
      if (!policy.canSee(caller, claims)) throw new ForbiddenError(`your token's claims do not give access to ${type} "${name}"`);
      return claims;
    },
    async putClaims(caller, type, name, claims) {
      policy.requireRole(caller, 'manageEntries');
      if (!policy.canSee(caller, await inner.getClaims(caller, type, name))) throw new NotFoundError(`no published ${type} named "${name}"`);
      if (!policy.canGrant(caller, claims)) throw notASubset();
      await inner.putClaims(caller, type, name, claims);
    },
  };
}
