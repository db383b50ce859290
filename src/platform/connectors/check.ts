import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { createGuardedLookup } from '../../core/net/address-guard.js';
import type { Logger } from 'pino';

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

export function createEndpointChecker(options: { logger: Logger }): EndpointChecker {
  // the connection itself is guarded, so a DNS answer that changed since the write's check cannot slip through
  const guarded = new Agent({ connect: { lookup: createGuardedLookup({ describe: (host, address) => `${host} resolves to the private address ${address}` }) } });
  return async (probe) => {
    const dispatcher = probe.allowPrivateIps ? undefined : guarded;
    const fetchVia = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...init, ...(dispatcher && { dispatcher }) } as Parameters<typeof undiciFetch>[1])) as unknown as typeof fetch;
    const url = new URL(probe.endpoint);
    // requestInit's headers go with every request, the SSE stream's included
    const settings = { requestInit: { headers: probe.headers }, fetch: fetchVia };
    const transport: Transport =
      probe.transport === 'sse'
        ? // eslint-disable-next-line @typescript-eslint/no-deprecated -- HTTP+SSE servers still exist and connectors may use them (§2 transport sse)
          new SSEClientTransport(url, settings)
        : new StreamableHTTPClientTransport(url, settings);
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
