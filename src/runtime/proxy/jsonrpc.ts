export type JsonRpcId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One JSON-RPC 2.0 message; which kind it is depends on which fields are present. */
export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: JsonRpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: JsonRpcError;
}

export const INTERNAL_ERROR = -32603;
export const INVALID_PARAMS = -32602;
export const INVALID_REQUEST = -32600;
export const PARSE_ERROR = -32700;
/** Implementation-defined server errors: a refused call (rate limit) and an upstream that took too long. */
export const SERVER_ERROR = -32000;
export const REQUEST_TIMEOUT = -32001;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number';
}

/** Returns the message when `value` has the JSON-RPC 2.0 envelope, otherwise undefined. */
export function asJsonRpcMessage(value: unknown): JsonRpcMessage | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return undefined;
  if (value.method !== undefined && typeof value.method !== 'string') return undefined;
  if (value.id !== undefined && value.id !== null && !isJsonRpcId(value.id)) return undefined;
  if (value.params !== undefined && !isRecord(value.params)) return undefined;
  return value as unknown as JsonRpcMessage;
}

export function isRequest(m: JsonRpcMessage): m is JsonRpcMessage & { method: string; id: JsonRpcId } {
  return m.method !== undefined && isJsonRpcId(m.id);
}

export function isNotification(m: JsonRpcMessage): m is JsonRpcMessage & { method: string } {
  return m.method !== undefined && (m.id === undefined || m.id === null);
}

export function isResponse(m: JsonRpcMessage): boolean {
  return m.method === undefined && (m.result !== undefined || m.error !== undefined);
}

export function errorResponse(id: JsonRpcId | null, code: number, message: string): JsonRpcMessage {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

export function metaOf(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return isRecord(meta) ? meta : undefined;
}
