import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ToolCalls } from './calls.js';
import type { ToolListing } from './listing.js';
import { RPC, rpcAnswer, type RpcId, type RpcOutcome } from './rpc.js';
import type { ConnectorCaller } from './tools.js';

/** What one POST to the MCP endpoint gets: a JSON-RPC answer (200, or 400 for a message that is not one), or 202 for a notification. */
export type McpReply = { status: 200 | 400; body: Record<string, unknown> } | { status: 202 };

export interface McpEndpoint {
  handle(caller: ConnectorCaller, gatewayId: string, message: unknown): Promise<McpReply>;
}

const SERVER_INFO = { name: 'toolyard-connector-gateway', version: '0.1.0' };

const isId = (value: unknown): value is RpcId => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/**
 * The gateway's MCP server, stateless and tools only, answering each message itself: building an SDK
 * server per request would cost more than the call it serves.
 */
export function createMcpEndpoint(options: { listing: ToolListing; calls: ToolCalls; logger: Logger }): McpEndpoint {
  const { listing, calls, logger } = options;

  const dispatch = async (caller: ConnectorCaller, gatewayId: string, method: string, params: unknown): Promise<RpcOutcome> => {
    switch (method) {
      case 'initialize': {
        const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        const protocolVersion = typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
        return { result: { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: SERVER_INFO } };
      }
      case 'ping':
        return { result: {} };
      case 'tools/list':
        return { result: { tools: await listing.list(caller, gatewayId) } };
      case 'tools/call':
        return calls.call(caller, gatewayId, params);
      default:
        return { error: { code: RPC.methodNotFound, message: `method not found: ${method} (this gateway serves initialize, ping, tools/list and tools/call)` } };
    }
  };

  return {
    async handle(caller, gatewayId, message) {
      if (Array.isArray(message)) return { status: 400, body: rpcAnswer(null, { error: { code: RPC.invalidRequest, message: 'JSON-RPC batches are not served: send one message per request' } }) };
      if (typeof message !== 'object' || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
        return { status: 400, body: rpcAnswer(null, { error: { code: RPC.invalidRequest, message: 'the body must be one JSON-RPC 2.0 message ({"jsonrpc": "2.0", ...})' } }) };
      }
      const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
      // notifications, and answers to requests this server never sends, are acknowledged and dropped
      if (id === undefined || typeof method !== 'string') return { status: 202 };
      if (!isId(id)) return { status: 400, body: rpcAnswer(null, { error: { code: RPC.invalidRequest, message: 'id: must be a string or an integer' } }) };
      if (params !== undefined && (typeof params !== 'object' || params === null)) {
        return { status: 200, body: rpcAnswer(id, { error: { code: RPC.invalidParams, message: 'params: must be an object' } }) };
      }
      try {
        return { status: 200, body: rpcAnswer(id, await dispatch(caller, gatewayId, method, params)) };
      } catch (error) {
        logger.error({ err: error, method }, 'the connector gateway failed to answer an MCP request');
        return { status: 200, body: rpcAnswer(id, { error: { code: RPC.internalError, message: 'internal error: the gateway failed to answer this request' } }) };
      }
    },
  };
}
