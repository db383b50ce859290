/**
 * The parent side of bench/proxy.ts's worker processes (bench/proxy-host.ts, bench/proxy-client.ts):
 * each is started with tsx and an IPC channel, reports once when it is ready, then answers every
 * request with exactly one message, and shuts down when the channel closes.
 */
import { spawn } from 'node:child_process';

export interface WorkerProcess<Ready, Request, Reply> {
  readonly ready: Ready;
  readonly pid: number | undefined;
  ask: (request: Request) => Promise<Reply>;
  /** Closes the channel and waits for the worker to exit (killing it when it takes too long). */
  stop: () => Promise<void>;
}

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export function startWorker<Ready, Request extends object, Reply>(cwd: string, script: string, options: unknown, label: string): Promise<WorkerProcess<Ready, Request, Reply>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(options)], {
    cwd,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T>(what: string, send: () => void): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`${label} exited with ${code ?? 'a signal'} while ${what}`));
      child.once('exit', onExit);
      child.once('message', (message) => {
        child.off('exit', onExit);
        resolve(message as T);
      });
      send();
    });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    if (child.connected) child.disconnect();
    else child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  };
  const timer = setTimeout(() => child.kill('SIGKILL'), STARTUP_TIMEOUT_MS);
  return next<Ready>('starting', () => undefined).then(
    (ready) => {
      clearTimeout(timer);
      return {
        ready,
        pid: child.pid,
        ask: (request) => next<Reply>('answering', () => child.send(request)),
        stop,
      };
    },
    (error: unknown) => {
      clearTimeout(timer);
      throw error;
    },
  );
}
