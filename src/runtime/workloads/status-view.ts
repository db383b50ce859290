import type { Clock } from '../../core/clock.js';
import { proxyUrl } from '../proxy/http-io.js';
import type { RunConfig, StatusRecord, WorkloadStatus, WorkloadSummary } from './schemas.js';
import type { SupervisorControl } from './supervision.js';

export interface ObservedStatus {
  status: WorkloadStatus;
  status_context: string;
  started_at: string;
}

/** How long `starting` may be recorded before a supervisor has recorded itself (the launcher may have died). */
const LAUNCH_GRACE_MS = 30_000;

const NOT_RUNNING = 'supervisor is not running';

/**
 * The recorded status checked against the processes it names, so a workload whose supervisor or
 * server died is never shown as running.
 */
export async function observeStatus(
  record: StatusRecord | undefined,
  supervisor: SupervisorControl,
  clock: Clock,
): Promise<ObservedStatus> {
  if (record === undefined) return { status: 'stopped', status_context: '', started_at: '' };
  const observed: ObservedStatus = { status: record.status, status_context: record.status_context, started_at: record.started_at };
  if (record.status === 'stopped' || record.status === 'error' || record.status === 'removing') return observed;

  if (record.supervisor === undefined) {
    if (record.status === 'stopping') return { ...observed, status: 'stopped', status_context: '' };
    const launching = record.status === 'starting' && clock.now().getTime() - Date.parse(record.updated_at) < LAUNCH_GRACE_MS;
    return launching ? observed : { ...observed, status: 'error', status_context: NOT_RUNNING };
  }
  const alive = await supervisor.alive(record);
  if (!alive.supervisor) {
    return record.status === 'stopping'
      ? { ...observed, status: 'stopped', status_context: '' }
      : { ...observed, status: 'error', status_context: NOT_RUNNING };
  }
  if (record.status === 'running' && record.server !== undefined && !alive.server) {
    return { ...observed, status: 'unhealthy', status_context: 'the server process is not running; the supervisor restarts it' };
  }
  return observed;
}

/** The statuses after which a workload should be running again when its configuration changes. */
export const isActive = (status: WorkloadStatus): boolean => status === 'running' || status === 'starting' || status === 'unhealthy';

/** Where clients reach the workload: the proxy's MCP endpoint in its mode. */
function workloadUrl(config: Pick<RunConfig, 'host' | 'port' | 'proxy_mode'>): string {
  const bound = config.host === '' || config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return proxyUrl(config.port, bound, config.proxy_mode);
}

export function summaryOf(config: RunConfig, observed: ObservedStatus): WorkloadSummary {
  return {
    name: config.name,
    package: config.image !== '' ? config.image : config.remote_url,
    url: workloadUrl(config),
    port: config.port,
    transport_type: config.transport,
    proxy_mode: config.proxy_mode,
    status: observed.status,
    status_context: observed.status_context,
    created_at: config.created_at,
    started_at: observed.started_at,
    labels: config.labels,
    group: config.group,
    tools: config.tools_filter,
    remote: config.remote_url !== '',
  };
}

/** A workload whose run configuration cannot be used: listed with the reason, so it never hides the others. */
export function brokenSummary(name: string, problem: string): WorkloadSummary {
  return {
    name,
    package: '',
    url: '',
    port: 0,
    transport_type: '',
    proxy_mode: '',
    status: 'error',
    status_context: problem,
    created_at: '',
    started_at: '',
    labels: {},
    group: '',
    tools: [],
    remote: false,
  };
}
