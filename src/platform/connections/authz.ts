import type { PlatformAccess } from '../identity/access.js';
import type { ConnectionService } from './service.js';

/** Any connection may be read by connectorAdmin or auditor; own connections need only a directory identity (the service resolves it). */
export function authorizeConnections(service: ConnectionService, access: PlatformAccess): ConnectionService {
  const read = ['connectorAdmin', 'auditor'] as const;
  return {
    ...service,
    listOfConnector(actor, gatewayId, connectorId, query) {
      access.require(actor, read, "listing a connector's connections");
      return service.listOfConnector(actor, gatewayId, connectorId, query);
    },
    get(actor, id) {
      access.require(actor, read, "reading any user's connection");
      return service.get(actor, id);
    },
  };
}
