import type { PlatformAccess } from '../identity/access.js';
import type { AuditTrail } from './service.js';

/** Reading the trail takes admin or auditor; recording is the services' own business. */
export function authorizeAudit(audit: AuditTrail, access: PlatformAccess): AuditTrail {
  return {
    ...audit,
    list(actor, query) {
      access.require(actor, ['auditor'], 'reading the audit trail');
      return audit.list(actor, query);
    },
  };
}
