import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StdioServerCommand } from '../proxy/stdio-child.js';
import type { WorkloadProxy } from '../proxy/types.js';

/** Counts server exits, so a wait begun after a restart only sees exits of that server. */
export interface ExitWatch {
  readonly count: number;
  readonly lastReason: string;
  exited: (reason: string) => void;
  /** Resolves once the server has exited more than `count` times. */
  after: (count: number) => Promise<void>;
}

export function createExitWatch(onExit: (reason: string) => void): ExitWatch {
  let count = 0;
  let lastReason = '';
  let waiters: { count: number; resolve: () => void }[] = [];
  return {
    get count() {
      return count;
    },
    get lastReason() {
      return lastReason;
    },
    exited: (reason) => {
      count += 1;
      lastReason = reason;
      const due = waiters.filter((waiter) => waiter.count < count);
      waiters = waiters.filter((waiter) => waiter.count >= count);
      for (const waiter of due) waiter.resolve();
      onExit(reason);
    },
    after: (since) =>
      since < count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count: since, resolve })),
  };
}

/** The server process of one workload, whatever runs it. */
export interface ServerDriver {
  readonly pid: number | undefined;
  /** Starts the server again after it exited. */
  restart: () => void;
  /**
   * Waits until the server started after exit number `since` serves. Resolves undefined when it
   * does, else why not (it exited, or never listened). Gives up early when `signal` aborts.
   */
  ready: (since: number, signal: AbortSignal) => Promise<string | undefined>;
  stop: () => Promise<void>;
}

async function quietSleep(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}

/** A remote server: nothing to run, the proxy only forwards. */
export const remoteDriver: ServerDriver = {
  pid: undefined,
  restart: () => undefined,
  ready: () => Promise.resolve(undefined),
  stop: () => Promise.resolve(),
};

/**
 * A stdio server the proxy runs. It cannot be probed without a client session, so one that is
 * still running after `graceMs` counts as started; that catches bad commands and missing modules.
 */
export function stdioDriver(proxy: () => WorkloadProxy, watch: ExitWatch, graceMs: number): ServerDriver {
  return {
    get pid() {
      return proxy().serverPid;
    },
    restart: () => proxy().restartServer(),
    ready: async (since, signal) => {
      const settled = new AbortController();
      const stop = (): void => settled.abort();
      signal.addEventListener('abort', stop, { once: true });
      await Promise.race([quietSleep(graceMs, settled.signal), watch.after(since)]);
      settled.abort();
      signal.removeEventListener('abort', stop);
      return watch.count > since ? watch.lastReason : undefined;
    },
    // The proxy stops its own server when it closes.
    stop: () => Promise.resolve(),
  };
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface LocalHttpDriverOptions {
  command: StdioServerCommand;
  port: number;
  watch: ExitWatch;
  onOutput: (chunk: string) => void;
  /** How long the server may take to listen on its port. */
  startupTimeoutMs: number;
  stopGraceMs: number;
}

/** A streamable-http or sse server process the supervisor runs itself, on its target port. */
export function localHttpDriver(options: LocalHttpDriverOptions): ServerDriver {
  const { command, port, watch } = options;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = (): void => {
    // No shell: arguments reach the server exactly as configured.
    const proc = spawn(command.command, command.args ?? [], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: command.env,
      ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
    });
    proc.stdout.setEncoding('utf8').on('data', options.onOutput);
    proc.stderr.setEncoding('utf8').on('data', options.onOutput);
    child = proc;
    exited = new Promise((resolve) => {
      let reported = false;
      const report = (reason: string): void => {
        if (reported) return;
        reported = true;
        watch.exited(reason);
        resolve();
      };
      proc.once('error', (error) => report(`failed to start: ${error.message}`));
      proc.once('exit', (code, signal) => report(signal === null ? `exited with code ${String(code)}` : `killed by ${signal}`));
    });
  };
  const running = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;

  start();
  return {
    get pid() {
      return child?.pid;
    },
    restart: start,
    ready: async (since, signal) => {
      const deadline = Date.now() + options.startupTimeoutMs;
      while (!signal.aborted) {
        if (watch.count > since) return watch.lastReason;
        if (await portAnswers(port)) return undefined;
        if (Date.now() >= deadline) {
          // Killing it turns "never listened" into an exit, which the restart policy handles.
          child?.kill('SIGKILL');
          return `did not listen on port ${String(port)} within ${String(Math.round(options.startupTimeoutMs / 1000))}s`;
        }
        await quietSleep(100, signal);
      }
      return 'stopped while starting';
    },
    stop: async () => {
      if (!running()) return;
      child?.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), options.stopGraceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
