import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createPeriodicJob, type PeriodicJob } from '../../core/periodic-job.js';
import type { PlatformDatabase } from '../db.js';
import { foldRecords, lockFold, unfoldedChains } from './fold-store.js';

/** `runOnce` folds every chain's records past its fold into the roll-ups and returns how many it folded. */
export type FoldJob = PeriodicJob<number>;

export interface FoldJobOptions {
  db: Kysely<PlatformDatabase>;
  logger: Logger;
  intervalMs?: number;
  /** Most records one fold's transaction adds; a longer tail takes several. */
  maxRecords?: number;
}

/**
 * The roll-ups are kept off the tool call's path: a record commits alone before the answer, and this job adds
 * the records past each chain's fold to the roll-ups every second. The reads count the records past the fold
 * themselves, so how far the job lags changes what they cost, never what they say. The fold's row lock makes
 * one replica fold a range once.
 */
export function createFoldJob(options: FoldJobOptions): FoldJob {
  const { db, logger } = options;
  const intervalMs = options.intervalMs ?? 1_000;
  const maxRecords = options.maxRecords ?? 20_000;
  const foldChain = (chainId: string) =>
    db.transaction().execute(async (trx) => {
      const { folded, head } = await lockFold(trx, chainId);
      const through = Math.min(head, folded + maxRecords);
      if (through > folded) await foldRecords(trx, chainId, folded, through);
      return Math.max(0, through - folded);
    });

  const runOnce = async () => {
    let total = 0;
    for (const chainId of await unfoldedChains(db)) total += await foldChain(chainId);
    return total;
  };

  return createPeriodicJob({ runOnce, intervalMs, logger, failure: 'folding tool-usage records into the roll-ups failed; the next pass retries' });
}
