import type { PlatformConfig } from '../config.js';

export interface ConfiguredGateway {
  id: string;
  name: string;
}

/** The configured connector gateways, as the features that hang off one (connectors, discovery, usage) check them. */
export interface Gateways {
  list(): readonly ConfiguredGateway[];
}

/** The per-gateway MCP endpoint of the connector gateway (PLATFORM-API Part 4 §7), below the public base URL. */
export const mcpPathOf = (gatewayId: string): string => `/connector-gateway/v1/gateways/${gatewayId}/mcp`;

export function createGateways(config: PlatformConfig['connectorGateway']): Gateways {
  const gateways = config.gateways.map((gateway) => ({ id: gateway.id, name: gateway.name }));
  return { list: () => gateways };
}
