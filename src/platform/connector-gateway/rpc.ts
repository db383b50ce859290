/** JSON-RPC as the connector gateway's MCP endpoint speaks it (PLATFORM-API Part 4 §7). */

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** A gateway-side failure: the connector cannot be served, a credential, an upstream that failed. */
  serverError: -32000,
  /** Denied: invisible, by policy, disabled or narrowed out. */
  denied: -32003,
} as const;

/** Where a tools/call answer carries the id of its usage record. */
export const CALL_ID_META = 'io.toolyard/call-id';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcOutcome = { result: Record<string, unknown> } | { error: RpcError };

export type RpcId = string | number;

export const rpcAnswer = (id: RpcId | null, outcome: RpcOutcome): Record<string, unknown> => ({ jsonrpc: '2.0', id, ...outcome });
