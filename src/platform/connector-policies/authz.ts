import type { PlatformAccess } from '../identity/access.js';
import type { ConnectorPolicyService } from './service.js';

/** Reads take connectorAdmin or auditor; writes connectorAdmin (admin passes every check). */
export function authorizeConnectorPolicies(service: ConnectorPolicyService, access: PlatformAccess): ConnectorPolicyService {
  const write = ['connectorAdmin'] as const;
  return {
    get(actor, connectorId) {
      access.require(actor, ['connectorAdmin', 'auditor'], 'reading connector policies');
      return service.get(actor, connectorId);
    },
    replaceGroups(actor, connectorId, body, ifMatch) {
      access.require(actor, write, 'granting groups a connector');
      return service.replaceGroups(actor, connectorId, body, ifMatch);
    },
    revokeGroup(actor, connectorId, groupId, ifMatch) {
      access.require(actor, write, "revoking a group's access to a connector");
      return service.revokeGroup(actor, connectorId, groupId, ifMatch);
    },
    setDocument(actor, connectorId, body, ifMatch) {
      access.require(actor, write, 'setting connector policy documents');
      return service.setDocument(actor, connectorId, body, ifMatch);
    },
    switchMode(actor, connectorId, mode, ifMatch) {
      access.require(actor, write, 'switching connector policy modes');
      return service.switchMode(actor, connectorId, mode, ifMatch);
    },
  };
}
