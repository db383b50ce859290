import type { Logger } from 'pino';
import type { GroupService } from '../workloads/groups.js';
import type { WorkloadService } from '../workloads/service.js';
import type { WorkloadSummary } from '../workloads/schemas.js';
import type { ClientService, RunningWorkload } from './service.js';

/** What a client connects to: the proxy's protocol, which for a stdio server is its proxy mode. */
export function runningWorkload(summary: WorkloadSummary): RunningWorkload {
  const transport = summary.transport_type === 'stdio' ? summary.proxy_mode : summary.transport_type;
  return { name: summary.name, url: summary.url, group: summary.group, transport: transport === 'sse' ? 'sse' : 'streamable-http' };
}

/**
 * The workload and group services with the same interfaces, keeping every registered client's
 * configuration file in step: after a workload starts, stops, changes or goes away, the files are
 * reconciled with the running workloads of each client's groups.
 */
export function withClientSync(
  services: { workloads: WorkloadService; groups: GroupService },
  clients: ClientService,
  logger: Logger,
): { workloads: WorkloadService; groups: GroupService } {
  const reconcile = async (): Promise<void> => {
    try {
      await clients.reconcile();
    } catch (error) {
      logger.warn({ err: error }, 'could not update the client configuration files');
    }
  };
  const after = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await fn(...args);
      await reconcile();
      return result;
    };
  const afterDone = <A extends unknown[]>(fn: (...args: A) => Promise<{ done: Promise<void> }>) =>
    async (...args: A): Promise<{ done: Promise<void> }> => {
      const accepted = await fn(...args);
      return { done: accepted.done.then(reconcile) };
    };
  const { workloads, groups } = services;
  return {
    workloads: {
      ...workloads,
      create: after(workloads.create),
      update: after(workloads.update),
      stop: afterDone(workloads.stop),
      restart: afterDone(workloads.restart),
      remove: afterDone(workloads.remove),
    },
    groups: { ...groups, remove: after(groups.remove) },
  };
}
