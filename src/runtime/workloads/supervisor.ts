import type { Clock } from '../../core/clock.js';
import { formatDuration } from '../../core/config/duration.js';
import type { WorkloadProxy, WorkloadProxyOptions } from '../proxy/types.js';
import { createWorkloadProxy } from '../proxy/workload-proxy.js';
import type { SecretReader } from '../secrets/environment.js';
import { BrokenStateFileError } from '../state/files.js';
import { createProcessIdentities, type ProcessIdentities } from './process-identity.js';
import { createRestartBackoff, DEFAULT_BACKOFF, type BackoffOptions } from './supervisor-backoff.js';
import { proxyPolicy, resolveTarget, type SupervisedTarget } from './supervisor-env.js';
import { createLogFile, timestamped } from './supervisor-log.js';
import {
  createExitWatch,
  localHttpDriver,
  remoteDriver,
  stdioDriver,
  type ExitWatch,
  type ServerDriver,
} from './supervisor-server.js';
import { createStatusWriter, type StatusWriter } from './supervisor-status.js';
import type { RunConfig } from './schemas.js';
import type { WorkloadStore } from './store.js';

export interface SupervisorOptions {
  name: string;
  store: WorkloadStore;
  secrets: SecretReader;
  clock: Clock;
  /** The supervisor's own environment; the server inherits only an allow-list of it. */
  env: Record<string, string | undefined>;
  /** Aborting it stops the workload and ends the supervisor (SIGTERM and SIGINT, see terminationSignal). */
  stop: AbortSignal;
  /** This process's pid, recorded with its start time. */
  pid?: number;
  identities?: ProcessIdentities;
  createProxy?: (options: WorkloadProxyOptions) => WorkloadProxy;
  backoff?: Partial<BackoffOptions>;
  /** A stdio server still running this long after it was started counts as up. */
  startupGraceMs?: number;
  /** How long a local HTTP server may take to listen on its target port. */
  httpStartupTimeoutMs?: number;
  /** Each log file is rotated to `.1` past this size. */
  logMaxBytes?: number;
}

const DEFAULT_LOG_MAX_BYTES = 5 * 1024 * 1024;

/** Stops on the first SIGTERM or SIGINT; a second one gets the default behaviour (exit at once). */
export function terminationSignal(): AbortSignal {
  const controller = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => controller.abort(signal));
  return controller.signal;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

interface Running {
  options: SupervisorOptions;
  config: RunConfig;
  target: SupervisedTarget;
  status: StatusWriter;
  log: (line: string) => void;
  serverOutput: (chunk: string) => void;
}

/**
 * Runs one workload in the foreground until `stop` aborts or the server cannot be kept alive:
 * starts the server and its proxy, restarts a crashed server with backoff and records every
 * status change. Resolves with the process exit code (0 once stopped, 1 on error).
 */
export async function runSupervisor(options: SupervisorOptions): Promise<number> {
  const { name, store, clock } = options;
  const maxBytes = options.logMaxBytes ?? DEFAULT_LOG_MAX_BYTES;
  const proxyLog = createLogFile({ path: store.logPath(name, 'proxy'), maxBytes });
  const serverLog = createLogFile({ path: store.logPath(name, 'server'), maxBytes });
  const log = timestamped(proxyLog, () => clock.now());
  try {
    const identities = options.identities ?? createProcessIdentities();
    const pid = options.pid ?? process.pid;
    const status = createStatusWriter({
      name,
      store,
      clock,
      log,
      initial: {
        status: 'starting',
        status_context: '',
        started_at: clock.now().toISOString(),
        supervisor: await identities.identify(pid),
        server: undefined,
        restarts: 0,
      },
    });
    log(`supervisor ${String(pid)} starting workload ${name}`);
    const fail = async (context: string): Promise<number> => {
      status.set({ status: 'error', status_context: context, server: undefined });
      await status.flush();
      return 1;
    };
    let config: RunConfig | undefined;
    try {
      config = await store.readConfig(name);
    } catch (error) {
      if (error instanceof BrokenStateFileError) return await fail(error.message);
      throw error;
    }
    if (config === undefined) return await fail(`workload ${name} has no run configuration`);
    let target: SupervisedTarget;
    try {
      target = await resolveTarget({ config, secrets: options.secrets, env: options.env });
    } catch (error) {
      return await fail(messageOf(error));
    }
    return await supervise({ options, config, target, status, log, serverOutput: (chunk) => serverLog.write(chunk) }, identities);
  } catch (error) {
    log(`supervisor failed: ${messageOf(error)}`);
    throw error;
  } finally {
    log('supervisor exiting');
    await Promise.all([proxyLog.close(), serverLog.close()]);
  }
}

async function supervise(run: Running, identities: ProcessIdentities): Promise<number> {
  const { options, config, target, status, log } = run;
  const backoff = createRestartBackoff({ ...DEFAULT_BACKOFF, ...options.backoff });
  const nowMs = (): number => options.clock.now().getTime();
  let phase: 'starting' | 'up' | 'restarting' | 'stopping' = 'starting';
  // Read through a function: the phase changes in callbacks while the code below awaits.
  const phaseIs = (wanted: typeof phase): boolean => phase === wanted;
  let restartTimer: NodeJS.Timeout | undefined;
  let giveUp: (context: string) => void = () => undefined;
  const gaveUp = new Promise<string>((resolve) => (giveUp = resolve));

  const markRunning = async (driver: ServerDriver): Promise<void> => {
    phase = 'up';
    const server = driver.pid === undefined ? undefined : await identities.identify(driver.pid);
    // The server may have crashed or a stop begun while its start time was read.
    if (phaseIs('up')) status.set({ status: 'running', status_context: '', server });
  };

  const watch: ExitWatch = createExitWatch((reason) => {
    if (phase === 'starting' || phase === 'stopping') return;
    const decision = backoff.exited(nowMs());
    if (!decision.restart) {
      giveUp(`server ${reason}; gave up after ${String(decision.attempts)} restarts`);
      return;
    }
    phase = 'restarting';
    status.set({
      status: 'unhealthy',
      status_context: `server ${reason}; restart ${String(decision.attempt)} of ${String(options.backoff?.maxTries ?? DEFAULT_BACKOFF.maxTries)} in ${formatDuration(decision.delayMs)}`,
      server: undefined,
    });
    restartTimer = setTimeout(() => void restart(), decision.delayMs);
  });

  let proxy: WorkloadProxy | undefined;
  let driver: ServerDriver = remoteDriver;
  const stopping = new AbortController();
  const restart = async (): Promise<void> => {
    if (phase === 'stopping') return;
    const since = watch.count;
    log('restarting server');
    driver.restart();
    backoff.started(nowMs());
    status.set({ restarts: status.current.restarts + 1 });
    // A failed start is an exit, already handed to the restart policy by the watch.
    if ((await driver.ready(since, stopping.signal)) === undefined && phaseIs('restarting')) await markRunning(driver);
  };

  const shutdown = async (): Promise<void> => {
    phase = 'stopping';
    clearTimeout(restartTimer);
    stopping.abort();
    await proxy?.close();
    await driver.stop();
  };

  const host = config.host === '' ? '127.0.0.1' : config.host;
  try {
    if (target.kind === 'local-http') {
      driver = localHttpDriver({
        command: target.command,
        port: target.port,
        watch,
        onOutput: run.serverOutput,
        startupTimeoutMs: options.httpStartupTimeoutMs ?? 30_000,
        stopGraceMs: 5_000,
      });
    }
    proxy = (options.createProxy ?? createWorkloadProxy)({
      target: target.kind === 'stdio' ? { kind: 'stdio', command: target.command } : target.proxy,
      mode: config.proxy_mode,
      policy: proxyPolicy(config),
      log,
      onServerOutput: run.serverOutput,
      onServerExit: (reason) => watch.exited(reason),
    });
    const created = proxy;
    if (target.kind === 'stdio') driver = stdioDriver(() => created, watch, options.startupGraceMs ?? 500);
    const address = await created.listen(config.port, host);
    log(`proxy listening at ${address.url}`);
  } catch (error) {
    await shutdown();
    status.set({ status: 'error', status_context: `could not start the proxy on ${host}:${String(config.port)}: ${messageOf(error)}`, server: undefined });
    await status.flush();
    return 1;
  }

  backoff.started(nowMs());
  const failure = await driver.ready(0, options.stop);
  if (failure !== undefined && !options.stop.aborted) {
    await shutdown();
    status.set({ status: 'error', status_context: `server ${failure} while starting; see the workload's logs`, server: undefined });
    await status.flush();
    return 1;
  }
  if (!options.stop.aborted) await markRunning(driver);

  const outcome = await Promise.race([aborted(options.stop).then(() => undefined), gaveUp]);
  if (outcome === undefined) status.set({ status: 'stopping', status_context: 'stop requested' });
  await shutdown();
  status.set(
    outcome === undefined
      ? { status: 'stopped', status_context: '', server: undefined }
      : { status: 'error', status_context: outcome, server: undefined },
  );
  await status.flush();
  return outcome === undefined ? 0 : 1;
}
