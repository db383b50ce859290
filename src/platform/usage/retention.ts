import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { PlatformDatabase } from '../db.js';
import { deleteExpired, type DeletedRecords } from './operations/delete-expired.js';
import { horizonOf } from './window.js';

const HOUR_MS = 3_600_000;

export interface RetentionJob {
  /** One pass: deletes what is older than the horizon now; null when another replica was doing it. */
  runOnce(): Promise<DeletedRecords | null>;
  /** Runs a pass now and then hourly; the timer never keeps the process alive. */
  start(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export interface RetentionJobOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  logger: Logger;
  /** `usage.retentionDays`. */
  retentionDays: number;
  intervalMs?: number;
}

/** Retention (PLATFORM-API Part 3 §3.5): charges, usage events and ended budget periods past the horizon go, hourly. */
export function createRetentionJob(options: RetentionJobOptions): RetentionJob {
  const { db, clock, logger, retentionDays } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const runOnce = () => db.transaction().execute((trx) => deleteExpired(trx, horizonOf(clock.now(), retentionDays)));
  const pass = () => {
    running = runOnce()
      .then((deleted) => {
        if (deleted && Object.values(deleted).some((count) => count > 0)) logger.info(deleted, 'deleted charges, usage events and budget periods past the retention horizon');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'retention pass failed; the next one retries'));
  };
  return {
    runOnce,
    start() {
      if (timer) return;
      pass();
      timer = setInterval(pass, options.intervalMs ?? HOUR_MS).unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
