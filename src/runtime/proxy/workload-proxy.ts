import type { ProxyMode } from '../workloads/schemas.js';
import { createReverseProxy } from './reverse-proxy.js';
import { createStdioProxy } from './stdio-proxy.js';
import type { WorkloadProxy, WorkloadProxyOptions } from './types.js';

/** The proxy for one workload: a stdio bridge for a local process, a reverse proxy for an URL. */
export function createWorkloadProxy(options: WorkloadProxyOptions): WorkloadProxy {
  const { target } = options;
  return target.kind === 'stdio' ? createStdioProxy({ ...options, target }) : createReverseProxy({ ...options, target });
}

/**
 * The URL clients use: the proxy mode of a stdio workload or the transport of an HTTP one
 * decides between Streamable HTTP at /mcp and SSE at /sse.
 */
export function proxyUrl(port: number, host: string, modeOrTransport: ProxyMode): string {
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${String(port)}${modeOrTransport === 'sse' ? '/sse' : '/mcp'}`;
}
