import { ForbiddenError } from '../../core/errors.js';
import type { ConsumerAccess } from './service.js';
import type { AccessPolicy } from '../identity/policy.js';

/** The consumer API's two layers: the registry gate (403 before any data), then entry visibility. */
export function createConsumerAccess(policy: AccessPolicy): ConsumerAccess {
  return {
    checkRegistryGate(caller, registry) {
      if (policy.mode !== 'full' || policy.canSee(caller, registry.claims)) return;
      throw new ForbiddenError(
        Object.keys(registry.claims).length === 0
          ? `registry "${registry.name}" has no claims: only a superAdmin may read it`
          : `your token's claims do not give access to registry "${registry.name}"`,
      );
    },
    visibility: (caller) => (policy.mode === 'full' ? policy.visibility(caller) : undefined),
  };
}
