import type { PlatformAccess } from '../identity/access.js';
import type { ManagedSecretService } from './service.js';

/** Reads take connectorAdmin or auditor; writes connectorAdmin (admin passes every check). */
export function authorizeManagedSecrets(service: ManagedSecretService, access: PlatformAccess): ManagedSecretService {
  const read = ['connectorAdmin', 'auditor'] as const;
  const write = ['connectorAdmin'] as const;
  return {
    create(actor, body) {
      access.require(actor, write, 'creating managed secrets');
      return service.create(actor, body);
    },
    list(actor, query) {
      access.require(actor, read, 'listing managed secrets');
      return service.list(actor, query);
    },
    get(actor, id) {
      access.require(actor, read, 'reading managed secrets');
      return service.get(actor, id);
    },
    replace(actor, id, body) {
      access.require(actor, write, 'replacing managed secret values');
      return service.replace(actor, id, body);
    },
    delete(actor, id) {
      access.require(actor, write, 'deleting managed secrets');
      return service.delete(actor, id);
    },
  };
}
