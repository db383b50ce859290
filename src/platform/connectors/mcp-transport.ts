import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { createGuardedLookup } from '../../core/net/address-guard.js';

/** Where and how to reach a connector's MCP server. */
export interface UpstreamTarget {
  endpoint: string;
  transport: 'streamable-http' | 'sse';
  allowPrivateIps: boolean;
  /** Sent with every request, the SSE stream's included. */
  headers: Record<string, string>;
}

/** Makes the SDK client transport of a target; every dial is guarded unless the connector allows private addresses. */
export interface UpstreamTransports {
  (target: UpstreamTarget): Transport;
  /** Where requests made without the SDK go (the connector gateway's forwarded calls), guarded alike. */
  dispatcher(allowPrivateIps: boolean): Dispatcher;
}

/**
 * The one way the platform reaches connectors (the endpoint check and the connector gateway): the
 * connection itself is guarded (PLATFORM-API Part 4 §2 rule 1), so a DNS answer that changed since the
 * write's check cannot slip through.
 */
export function createUpstreamTransports(): UpstreamTransports {
  const guarded = new Agent({ connect: { lookup: createGuardedLookup({ describe: (host, address) => `${host} resolves to the private address ${address} (the connector does not allow private addresses)` }) } });
  // this package's own, not the global one, which Node's built-in fetch may have installed from an older undici
  const open = new Agent();
  const guardedFetch = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...init, dispatcher: guarded } as Parameters<typeof undiciFetch>[1])) as unknown as typeof fetch;
  const transports = (target: UpstreamTarget): Transport => {
    const url = new URL(target.endpoint);
    const settings = { requestInit: { headers: target.headers }, ...(!target.allowPrivateIps && { fetch: guardedFetch }) };
    return target.transport === 'sse'
      ? // eslint-disable-next-line @typescript-eslint/no-deprecated -- HTTP+SSE servers still exist and connectors may use them (§2 transport sse)
        new SSEClientTransport(url, settings)
      : new StreamableHTTPClientTransport(url, settings);
  };
  return Object.assign(transports, { dispatcher: (allowPrivateIps: boolean) => (allowPrivateIps ? open : guarded) });
}
