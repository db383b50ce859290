import { createReverseProxy } from './reverse-proxy.js';
import { createStdioProxy } from './stdio-proxy.js';
import type { WorkloadProxy, WorkloadProxyOptions } from './types.js';

/** The proxy for one workload: a stdio bridge for a local process, a reverse proxy for an URL. */
export function createWorkloadProxy(options: WorkloadProxyOptions): WorkloadProxy {
  const { target } = options;
  return target.kind === 'stdio' ? createStdioProxy({ ...options, target }) : createReverseProxy({ ...options, target });
}
