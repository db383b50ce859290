import type { ToolsOverride } from '../workloads/schemas.js';
import { errorResponse, INVALID_PARAMS, isJsonRpcId, SERVER_ERROR, type JsonRpcMessage } from './jsonrpc.js';
import { createRateLimiter } from './rate-limiter.js';
import type { ProxyPolicy } from './types.js';

export type InboundResult =
  | { ok: true; message: JsonRpcMessage }
  | { ok: false; status: number; headers: Record<string, string>; body: JsonRpcMessage };

/**
 * The per-workload MCP policy (tool renames, the tool allow-list, rate limits), independent of any
 * transport so that the stdio proxy and the reverse proxy apply it the same way.
 */
export interface McpMiddleware {
  /** A client message on its way upstream. `user` is the per-user rate-limit key. */
  inbound: (message: JsonRpcMessage, user: string) => InboundResult;
  /** The upstream answer to a client request of method `method` (e.g. tools/list) on its way back. */
  outbound: (method: string, answer: JsonRpcMessage) => JsonRpcMessage;
  /** True when outbound rewriting is needed for that method (lets callers skip parsing). */
  rewrites: (method: string) => boolean;
}

export type MiddlewarePolicy = Pick<ProxyPolicy, 'toolsFilter' | 'toolsOverride' | 'rateLimit'>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Tool names as clients see them (after overrides) and as the upstream server knows them. */
function toolNames(filter: readonly string[], override: ToolsOverride) {
  const allowed = filter.length === 0 ? undefined : new Set(filter);
  const overrides = new Map(Object.entries(override));
  const originalOf = new Map<string, string>();
  const renamed = new Set<string>();
  for (const [original, change] of overrides) {
    if (change.name === undefined || change.name === original) continue;
    originalOf.set(change.name, original);
    renamed.add(original);
  }
  return {
    /** The upstream name for a name a client called, or undefined when clients cannot see that tool. */
    upstreamName: (name: string): string | undefined => {
      if (allowed !== undefined && !allowed.has(name)) return undefined;
      const original = originalOf.get(name);
      if (original !== undefined) return original;
      return renamed.has(name) ? undefined : name;
    },
    rewritesList: allowed !== undefined || overrides.size > 0,
    rewriteList: (answer: JsonRpcMessage): JsonRpcMessage => {
      const result = answer.result;
      if (!isRecord(result) || !Array.isArray(result.tools)) return answer;
      const tools: unknown[] = [];
      for (const tool of result.tools as unknown[]) {
        if (!isRecord(tool) || typeof tool.name !== 'string') continue;
        const change = overrides.get(tool.name);
        const name = change?.name ?? tool.name;
        if (allowed !== undefined && !allowed.has(name)) continue;
        if (change === undefined) {
          tools.push(tool);
          continue;
        }
        tools.push({ ...tool, name, ...(change.description === undefined ? {} : { description: change.description }) });
      }
      return { ...answer, result: { ...result, tools } };
    },
  };
}

export function createMcpMiddleware(policy: MiddlewarePolicy, clock: () => number = Date.now): McpMiddleware {
  const names = toolNames(policy.toolsFilter, policy.toolsOverride);
  const limiter = policy.rateLimit === null ? undefined : createRateLimiter(policy.rateLimit, clock);

  return {
    inbound: (message, user): InboundResult => {
      if (message.method !== 'tools/call' || !isJsonRpcId(message.id)) return { ok: true, message };
      const params = message.params;
      const name = typeof params?.name === 'string' ? params.name : undefined;
      const upstream = name === undefined ? undefined : names.upstreamName(name);
      if (name !== undefined && upstream === undefined) {
        return { ok: false, status: 200, headers: {}, body: errorResponse(message.id, INVALID_PARAMS, `tool ${name} is not available`) };
      }
      const refusal = limiter?.take(name, user);
      if (refusal !== undefined) {
        return {
          ok: false,
          status: 429,
          headers: { 'retry-after': String(refusal.retryAfterSeconds) },
          body: errorResponse(message.id, SERVER_ERROR, `rate limit exceeded: ${refusal.limit}`),
        };
      }
      if (upstream === name) return { ok: true, message };
      return { ok: true, message: { ...message, params: { ...params, name: upstream } } };
    },
    outbound: (method, answer) => (method === 'tools/list' && names.rewritesList ? names.rewriteList(answer) : answer),
    rewrites: (method) => method === 'tools/list' && names.rewritesList,
  };
}
