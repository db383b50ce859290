import type { PlatformAccess } from '../identity/access.js';
import type { DiscoveredServerService } from './service.js';

/** connectorAdmin or auditor (admin passes every check). */
export function authorizeDiscoveredServers(service: DiscoveredServerService, access: PlatformAccess): DiscoveredServerService {
  return {
    list(actor, gatewayId) {
      access.require(actor, ['connectorAdmin', 'auditor'], 'listing discovered MCP servers');
      return service.list(actor, gatewayId);
    },
  };
}
