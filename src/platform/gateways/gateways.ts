import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { PlatformConfig } from '../config.js';

export interface ConfiguredGateway {
  id: string;
  name: string;
}

/** The configured connector gateways, as the features that hang off one (connectors, discovery, usage) check them. */
export interface Gateways {
  list(): readonly ConfiguredGateway[];
  /** The gateway named by `{gateway_id}` in a path (404 when unknown) or by a query parameter (400). */
  require(id: string, where: 'path' | { query: string }): ConfiguredGateway;
}

/** The per-gateway MCP endpoint of the connector gateway (PLATFORM-API Part 4 §7), below the public base URL. */
export const mcpPathOf = (gatewayId: string): string => `/connector-gateway/v1/gateways/${gatewayId}/mcp`;

export function createGateways(config: PlatformConfig['connectorGateway']): Gateways {
  const byId = new Map(config.gateways.map((gateway) => [gateway.id, { id: gateway.id, name: gateway.name }]));
  const known = () => [...byId.keys()].join(', ');
  return {
    list: () => [...byId.values()],
    require(id, where) {
      const gateway = byId.get(id);
      if (gateway) return gateway;
      if (where === 'path') throw new NotFoundError(`no connector gateway with id "${id}" (configured: ${known()})`);
      throw new InvalidInputError(`${where.query}: no connector gateway with id "${id}" (configured: ${known()})`);
    },
  };
}
