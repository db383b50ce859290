import type { Actor } from '../identity/actor.js';
import { mcpPathOf, type Gateways } from './gateways.js';
import type { GatewayList } from './schemas.js';

export interface GatewayService {
  /** `baseUrl` is the service's public base URL for this request. */
  list(actor: Actor, baseUrl: string): Promise<GatewayList>;
}

export function createGatewayService(options: { gateways: Gateways }): GatewayService {
  return {
    list(_actor, baseUrl) {
      return Promise.resolve({ items: options.gateways.list().map((gateway) => ({ id: gateway.id, name: gateway.name, mcp_url: `${baseUrl}${mcpPathOf(gateway.id)}` })) });
    },
  };
}
