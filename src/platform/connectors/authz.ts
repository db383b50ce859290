import type { PlatformAccess } from '../identity/access.js';
import type { ConnectorService } from './service.js';

/** Reads take connectorAdmin or auditor; writes connectorAdmin (admin passes every check). */
export function authorizeConnectors(service: ConnectorService, access: PlatformAccess): ConnectorService {
  const read = ['connectorAdmin', 'auditor'] as const;
  const write = ['connectorAdmin'] as const;
  return {
    create(actor, gatewayId, body) {
      access.require(actor, write, 'creating connectors');
      return service.create(actor, gatewayId, body);
    },
    list(actor, gatewayId, query) {
      access.require(actor, read, 'listing connectors');
      return service.list(actor, gatewayId, query);
    },
    get(actor, gatewayId, id) {
      access.require(actor, read, 'reading connectors');
      return service.get(actor, gatewayId, id);
    },
    replace(actor, gatewayId, id, body) {
      access.require(actor, write, 'replacing connectors');
      return service.replace(actor, gatewayId, id, body);
    },
    delete(actor, gatewayId, id) {
      access.require(actor, write, 'deleting connectors');
      return service.delete(actor, gatewayId, id);
    },
  };
}
