import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { createPeriodicJob, type PeriodicJob } from '../../core/periodic-job.js';
import type { PlatformDatabase } from '../db.js';
import { deleteExpired, type DeletedRecords } from './operations/delete-expired.js';
import { horizonOf } from './window.js';

const HOUR_MS = 3_600_000;

/** `runOnce` deletes what is older than the horizon now (null when another replica was doing it); `start` runs a pass now and then hourly. */
export type RetentionJob = PeriodicJob<DeletedRecords | null>;

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
  return createPeriodicJob({
    runOnce: () => db.transaction().execute((trx) => deleteExpired(trx, horizonOf(clock.now(), retentionDays))),
    intervalMs: options.intervalMs ?? HOUR_MS,
    logger,
    failure: 'retention pass failed; the next one retries',
    runAtStart: true,
    onResult: (deleted) => {
      if (deleted && Object.values(deleted).some((count) => count > 0)) logger.info(deleted, 'deleted charges, usage events and budget periods past the retention horizon');
    },
  });
}
