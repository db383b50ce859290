import { createHash } from 'node:crypto';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { BadGatewayError, InvalidInputError, NotFoundError, NotImplementedError, PreconditionFailedError, PreconditionRequiredError } from '../../core/errors.js';
import type { Connections, ConnectionState, Precondition } from '../connections/lookup.js';
import type { ConnectorDecisions } from '../connector-policies/decisions.js';
import type { ConnectorAiPolicy } from './ai-policy.js';
import type { UpstreamCredentials } from '../connector-credentials/credentials.js';
import type { ConnectorRow } from '../connectors/store.js';
import { matches } from '../directory/service.js';
import type { ConnectorCatalog } from './catalog.js';
import type { ConnectorState, ConnectorStateBody, GatewayToolList } from './schemas.js';
import { policyConnector, type ConnectorCaller, type UpstreamTools } from './tools.js';

export interface VersionedState {
  state: ConnectorState;
  etag: string;
}

/** The REST routes of the connector gateway (PLATFORM-API Part 4 §7): a connector's tools and the caller's state. */
export interface ConnectorGatewayService {
  tools(caller: ConnectorCaller, connectorId: string): Promise<GatewayToolList>;
  getState(caller: ConnectorCaller, connectorId: string): Promise<VersionedState>;
  putState(caller: ConnectorCaller, connectorId: string, body: ConnectorStateBody, ifMatch: string | undefined): Promise<VersionedState>;
  deleteState(caller: ConnectorCaller, connectorId: string, ifMatch: string | undefined): Promise<void>;
}

export interface ConnectorGatewayServiceOptions {
  catalog: ConnectorCatalog;
  decisions: ConnectorDecisions;
  aiPolicy: ConnectorAiPolicy;
  connections: Connections;
  credentials: UpstreamCredentials;
  tools: UpstreamTools;
}

/** The state's own strong ETag: it changes with every explicit write and with the return to the default. */
function etagOf(connectorId: string, connection: ConnectionState | undefined): string {
  const version = connection ? `${connection.id}:${String(connection.enabled)}:${String(connection.updated_at.getTime())}` : 'default';
  return `"${createHash('sha256').update(`${connectorId}:${version}`).digest('hex').slice(0, 32)}"`;
}

const describe = (error: unknown): string => (error instanceof McpError ? error.message : error instanceof Error ? error.message : String(error));

export function createConnectorGatewayService(options: ConnectorGatewayServiceOptions): ConnectorGatewayService {
  const { catalog, decisions, aiPolicy, connections, credentials, tools } = options;

  /** A connector the caller may see; any other is absent (404), whether it exists or not. */
  const visible = async (caller: ConnectorCaller, connectorId: string): Promise<ConnectorRow> => {
    const connector = (await catalog.current()).byId.get(connectorId);
    if (!connector || !aiPolicy.allows(caller.user, connector.name) || !(await decisions.canUse(caller.user.userId, policyConnector(connector)))) {
      throw new NotFoundError(`connector_id: no connector with id ${connectorId} is visible to you`);
    }
    return connector;
  };

  const versioned = async (caller: ConnectorCaller, connector: ConnectorRow, connection: ConnectionState | undefined): Promise<VersionedState> => {
    const problem = await credentials.servingProblem(connector, caller.credential);
    return {
      state: {
        connector_id: connector.id,
        enabled: connection?.enabled ?? true,
        connection_status: problem === undefined ? 'ready' : 'needs_auth',
        updated_at: connection ? connection.updated_at.toISOString() : null,
      },
      etag: etagOf(connector.id, connection),
    };
  };

  /**
   * 501 when the connector cannot be served to this caller, then 428; the 412 is decided under the write's lock
   * (If-Match against the state as it is then), so of two writes sent with the same ETag one gets 412.
   */
  const writable = async (caller: ConnectorCaller, connector: ConnectorRow, ifMatch: string | undefined): Promise<Precondition> => {
    const problem = await credentials.servingProblem(connector, caller.credential);
    if (problem !== undefined) throw new NotImplementedError(`connector "${connector.name}" cannot be served to you: ${problem}`);
    if (ifMatch === undefined) throw new PreconditionRequiredError(`If-Match: required; GET /connector-gateway/v1/connectors/${connector.id}/state and send its ETag`);
    return (current) => {
      const etag = etagOf(connector.id, current);
      if (!matches(ifMatch, etag)) throw new PreconditionFailedError('If-Match: your state of this connector changed since you read it; GET it again', { etag });
    };
  };

  return {
    async tools(caller, connectorId) {
      const connector = await visible(caller, connectorId);
      const problem = await credentials.servingProblem(connector, caller.credential);
      if (problem !== undefined) throw new BadGatewayError(`connector "${connector.name}": cannot list its tools for you: ${problem}`);
      let listed;
      try {
        listed = await tools.list(caller, connector, { fresh: true });
      } catch (error) {
        throw new BadGatewayError(`connector "${connector.name}": tools/list at its server failed: ${describe(error)}`);
      }
      const allowed = await tools.allowed(caller, connector, listed);
      return {
        tools: allowed.map((tool) => ({
          description: typeof tool.description === 'string' ? tool.description : null,
          destructive_hint: typeof tool.annotations?.destructiveHint === 'boolean' ? tool.annotations.destructiveHint : null,
          input_schema: typeof tool.inputSchema === 'object' && tool.inputSchema !== null ? (tool.inputSchema as Record<string, unknown>) : null,
          name: tool.name,
          read_only_hint: typeof tool.annotations?.readOnlyHint === 'boolean' ? tool.annotations.readOnlyHint : null,
        })),
      };
    },

    async getState(caller, connectorId) {
      const connector = await visible(caller, connectorId);
      return versioned(caller, connector, await connections.find(caller.user.userId, connector.id));
    },

    async putState(caller, connectorId, body, ifMatch) {
      if (typeof body.enabled !== 'boolean') throw new InvalidInputError('body.enabled: required, true or false');
      const connector = await visible(caller, connectorId);
      const holds = await writable(caller, connector, ifMatch);
      const connection = await connections.setEnabled(caller.user.userId, connector.gateway_id, connector.id, body.enabled, holds);
      return versioned(caller, connector, connection);
    },

    async deleteState(caller, connectorId, ifMatch) {
      const connector = await visible(caller, connectorId);
      const holds = await writable(caller, connector, ifMatch);
      await connections.remove(caller.user.userId, connector.id, holds);
    },
  };
}
