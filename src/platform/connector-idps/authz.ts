import type { PlatformAccess } from '../identity/access.js';
import type { IdentityProviderService } from './service.js';

/** Reads take connectorAdmin or auditor; writes connectorAdmin (admin passes every check). */
export function authorizeIdentityProviders(service: IdentityProviderService, access: PlatformAccess): IdentityProviderService {
  const read = ['connectorAdmin', 'auditor'] as const;
  const write = ['connectorAdmin'] as const;
  return {
    create(actor, body) {
      access.require(actor, write, 'creating connector identity providers');
      return service.create(actor, body);
    },
    list(actor, query) {
      access.require(actor, read, 'listing connector identity providers');
      return service.list(actor, query);
    },
    get(actor, id) {
      access.require(actor, read, 'reading connector identity providers');
      return service.get(actor, id);
    },
    replace(actor, id, body) {
      access.require(actor, write, 'replacing connector identity providers');
      return service.replace(actor, id, body);
    },
    delete(actor, id) {
      access.require(actor, write, 'deleting connector identity providers');
      return service.delete(actor, id);
    },
  };
}
