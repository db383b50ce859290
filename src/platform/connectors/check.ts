import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Logger } from 'pino';
import { createUpstreamTransports, type UpstreamTransports } from './mcp-transport.js';

export type EndpointStatus = 'verified' | 'auth_required' | 'unreachable';

export interface EndpointProbe {
  endpoint: string;
  transport: 'streamable-http' | 'sse';
  allowPrivateIps: boolean;
  /** Sent with every request (header_injection); no user credential. */
  headers: Record<string, string>;
}

/** Checks an endpoint by opening an MCP session with it (PLATFORM-API Part 4 §2 rule 2). */
export type EndpointChecker = (probe: EndpointProbe) => Promise<EndpointStatus>;

/** PLATFORM-API Part 4 "Limits": 10 s for the check. */
const TIMEOUT_MS = 10_000;
const NAME_OF_CLIENT = { name: 'toolyard-platform-endpoint-check', version: '1.0.0' };

/** The HTTP status an SDK transport error carries, if any. */
function statusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) return error.code;
  return undefined;
}

export function createEndpointChecker(options: { logger: Logger; transports?: UpstreamTransports }): EndpointChecker {
  const transports = options.transports ?? createUpstreamTransports();
  return async (probe) => {
    const transport = transports({ endpoint: probe.endpoint, transport: probe.transport, allowPrivateIps: probe.allowPrivateIps, headers: probe.headers });
    const client = new Client(NAME_OF_CLIENT);
    const abort = AbortSignal.timeout(TIMEOUT_MS);
    try {
      await client.connect(transport, { signal: abort, timeout: TIMEOUT_MS });
      return 'verified';
    } catch (error) {
      const status = statusOf(error);
      if (status === 401 || status === 403 || (error instanceof Error && error.name === 'UnauthorizedError')) return 'auth_required';
      options.logger.info({ endpoint: probe.endpoint, error: error instanceof Error ? error.message : String(error) }, 'connector endpoint check failed');
      return 'unreachable';
    } finally {
      await client.close().catch(() => undefined);
    }
  };
}
