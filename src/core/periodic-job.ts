import type { Logger } from 'pino';

export interface PeriodicJob<R> {
  /** One pass, now. */
  runOnce(): Promise<R>;
  /** Runs passes on a timer that never keeps the process alive. */
  start(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export interface PeriodicJobOptions<R> {
  runOnce: () => Promise<R>;
  intervalMs: number;
  logger: Logger;
  /** Logged (with the error) when a pass fails; the next tick retries. */
  failure: string;
  /** What to do with a pass's result (a log line). */
  onResult?: (result: R) => void;
  /** Runs the first pass at start instead of one interval later. */
  runAtStart?: boolean;
}

/** A background job's timer: a pass still under way when the next tick comes is not doubled. */
export function createPeriodicJob<R>(options: PeriodicJobOptions<R>): PeriodicJob<R> {
  const { runOnce, intervalMs, logger, failure, onResult } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= runOnce()
      .then((result) => onResult?.(result))
      .catch((error: unknown) => logger.warn({ err: error }, failure))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    runOnce,
    start() {
      if (timer) return;
      if (options.runAtStart === true) pass();
      timer = setInterval(pass, intervalMs).unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
