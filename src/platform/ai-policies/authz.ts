import type { PlatformAccess } from '../identity/access.js';
import type { AiPolicyService } from './service.js';

/** Reads take auditor or aiPolicyAdmin, writes aiPolicyAdmin (admin passes every check); before any body is read. */
export function authorizeAiPolicies(service: AiPolicyService, access: PlatformAccess): AiPolicyService {
  const read = ['auditor', 'aiPolicyAdmin'] as const;
  const write = ['aiPolicyAdmin'] as const;
  return {
    create(actor, body) {
      access.require(actor, write, 'creating AI policies');
      return service.create(actor, body);
    },
    get(actor, name) {
      access.require(actor, read, 'reading AI policies');
      return service.get(actor, name);
    },
    list(actor, query) {
      access.require(actor, read, 'listing AI policies');
      return service.list(actor, query);
    },
    patch(actor, name, body, ifMatch) {
      access.require(actor, write, 'patching AI policies');
      return service.patch(actor, name, body, ifMatch);
    },
    delete(actor, name, ifMatch) {
      access.require(actor, write, 'deleting AI policies');
      return service.delete(actor, name, ifMatch);
    },
  };
}
