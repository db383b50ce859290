import type { Logger } from 'pino';
import { toolEnabled, type Connections } from '../connections/lookup.js';
import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { ConnectorAiPolicy } from './ai-policy.js';
import type { UpstreamCredentials } from '../connector-credentials/credentials.js';
import type { ConnectorRow } from '../connectors/store.js';
import type { ConnectorCatalog } from './catalog.js';
import { SEPARATOR } from './calls.js';
import { policyConnector, type ConnectorCaller, type UpstreamTools } from './tools.js';
import type { UpstreamTool } from './upstream.js';

export interface ToolListing {
  /** tools/list at the gateway's MCP endpoint (PLATFORM-API Part 4 §7 item 2). */
  list(caller: ConnectorCaller, gatewayId: string): Promise<UpstreamTool[]>;
}

export interface ToolListingOptions {
  catalog: ConnectorCatalog;
  decisions: ConnectorDecisions;
  aiPolicy: ConnectorAiPolicy;
  connections: Connections;
  credentials: UpstreamCredentials;
  tools: UpstreamTools;
  logger: Logger;
}

/**
 * For each connector of the gateway that is visible, enabled and servable to the caller: its upstream
 * tools that `call_tool` allows and the caller's narrowing enables, unchanged but for the prefixed name.
 * The connectors are asked at once; one that fails drops only its own tools.
 */
export function createToolListing(options: ToolListingOptions): ToolListing {
  const { catalog, decisions, aiPolicy, connections, credentials, tools, logger } = options;

  const toolsOf = async (caller: ConnectorCaller, connector: ConnectorRow): Promise<UpstreamTool[]> => {
    const { userId } = caller.user;
    if (!aiPolicy.allows(caller.user, connector.name)) return [];
    const [visible, connection] = await Promise.all([decisions.canUse(userId, policyConnector(connector)), connections.find(userId, connector.id)]);
    if (!visible || (connection && !connection.enabled)) return [];
    if ((await credentials.servingProblem(connector, caller.credential)) !== undefined) return [];
    const allowed = await tools.allowed(caller, connector, await tools.list(caller, connector));
    return allowed.filter((tool) => toolEnabled(connection, tool.name)).map((tool) => ({ ...tool, name: `${connector.tool_prefix}${SEPARATOR}${tool.name}` }));
  };

  return {
    async list(caller, gatewayId) {
      const connectors = (await catalog.current()).byGateway.get(gatewayId) ?? [];
      const listed = await Promise.all(
        connectors.map((connector) =>
          toolsOf(caller, connector).catch((error: unknown) => {
            logger.warn({ connector: connector.id, gateway: gatewayId, err: error instanceof Error ? error.message : String(error) }, 'a connector\u2019s tools are left out of tools/list');
            return [];
          }),
        ),
      );
      return listed.flat();
    },
  };
}
