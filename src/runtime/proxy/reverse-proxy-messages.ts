import { asJsonRpcMessage, isJsonRpcId, isRequest, isResponse, type JsonRpcId, type JsonRpcMessage } from './jsonrpc.js';
import type { McpMiddleware } from './middleware.js';

/** Request id (typed, so 1 and "1" differ) → method, for answers the middleware must rewrite. */
export type PendingRewrites = Map<string, string>;

export const idKey = (id: JsonRpcId): string => `${typeof id}:${String(id)}`;

export type InboundOutcome =
  | {
      ok: true;
      /** What to send upstream: the original bytes when the middleware changed nothing. */
      body: Buffer;
      rewrites: PendingRewrites;
      /** The id of a single request, for error answers the proxy makes itself. */
      id: JsonRpcId | null;
    }
  | { ok: false; status: number; headers: Record<string, string>; body: JsonRpcMessage };

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Runs the middleware's inbound step over a POST body. A body that is not JSON-RPC (an OAuth
 * form, say) goes upstream untouched; in a batch, one refused request refuses the whole POST
 * because the upstream must not see half of it.
 */
export function applyInbound(body: Buffer, middleware: McpMiddleware, user: string): InboundOutcome {
  const parsed = body.length === 0 ? undefined : parseJson(body);
  const items: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const rewrites: PendingRewrites = new Map();
  let changed = false;
  const out: unknown[] = [];
  for (const item of items) {
    const message = asJsonRpcMessage(item);
    if (message === undefined || !isRequest(message)) {
      out.push(item);
      continue;
    }
    const result = middleware.inbound(message, user);
    if (!result.ok) return result;
    if (result.message !== message) changed = true;
    out.push(result.message);
    if (isRequest(result.message) && middleware.rewrites(result.message.method)) {
      rewrites.set(idKey(result.message.id), result.message.method);
    }
  }
  const single = Array.isArray(parsed) ? undefined : asJsonRpcMessage(parsed);
  const id = single !== undefined && isJsonRpcId(single.id) ? single.id : null;
  if (!changed) return { ok: true, body, rewrites, id };
  return { ok: true, body: Buffer.from(JSON.stringify(Array.isArray(parsed) ? out : out[0])), rewrites, id };
}

function rewriteOne(value: unknown, pending: PendingRewrites, middleware: McpMiddleware): JsonRpcMessage | undefined {
  const message = asJsonRpcMessage(value);
  if (message === undefined || !isResponse(message) || !isJsonRpcId(message.id)) return undefined;
  const key = idKey(message.id);
  const method = pending.get(key);
  if (method === undefined) return undefined;
  pending.delete(key);
  return message.error === undefined ? middleware.outbound(method, message) : undefined;
}

/**
 * Rewrites the answers in one JSON text (a message or a batch) whose ids are pending; returns
 * undefined when the text holds none, so that the caller can forward the original bytes.
 */
export function rewriteAnswers(text: string, pending: PendingRewrites, middleware: McpMiddleware): string | undefined {
  if (pending.size === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) {
    const rewritten = rewriteOne(parsed, pending, middleware);
    return rewritten === undefined ? undefined : JSON.stringify(rewritten);
  }
  let changed = false;
  const out: unknown[] = [];
  for (const item of parsed as unknown[]) {
    const rewritten = rewriteOne(item, pending, middleware);
    if (rewritten !== undefined) changed = true;
    out.push(rewritten ?? item);
  }
  return changed ? JSON.stringify(out) : undefined;
}
