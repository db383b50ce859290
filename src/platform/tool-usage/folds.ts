import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createPeriodicJob, type PeriodicJob } from '../../core/periodic-job.js';
import type { PlatformDatabase } from '../db.js';
import { addRollUps, lockFold, readTail, unfoldedChains } from './fold-store.js';
import { rollUp } from './rollups.js';

/** `runOnce` folds every chain's records past its fold into the roll-ups and returns how many it folded. */
export type FoldJob = PeriodicJob<number>;

export interface FoldJobOptions {
  db: Kysely<PlatformDatabase>;
  logger: Logger;
  intervalMs?: number;
  /** Most records one fold's transaction adds; a longer tail takes several, one after the other. */
  maxRecords?: number;
}

/** What one pass folds of a chain at most; the next pass, a second later, goes on. */
const MAX_PER_PASS = 20_000;

/**
 * The roll-ups are kept off the tool call's path: a record commits alone before the answer, and this job adds
 * the records past each chain's fold to the roll-ups every second. The reads count the records past the fold
 * themselves, so how far the job lags changes what they cost, never what they say. The fold's row lock makes
 * one replica fold a range once. Its transactions stay short (a few dozen records, counted in the process):
 * on the embedded database a transaction holds the only connection, and every tool call waiting to commit its
 * record waits for the whole of it.
 */
export function createFoldJob(options: FoldJobOptions): FoldJob {
  const { db, logger } = options;
  const intervalMs = options.intervalMs ?? 1_000;
  const maxRecords = options.maxRecords ?? 64;
  const foldChain = (chainId: string) =>
    db.transaction().execute(async (trx) => {
      const { folded, head } = await lockFold(trx, chainId);
      const through = Math.min(head, folded + maxRecords);
      if (through > folded) await addRollUps(trx, chainId, rollUp(await readTail(trx, chainId, folded, through)), through);
      return Math.max(0, through - folded);
    });

  /** A chain's tail, a chunk per transaction, up to MAX_PER_PASS records: records keep coming while it folds. */
  const foldTail = async (chainId: string) => {
    let total = 0;
    for (;;) {
      const folded = await foldChain(chainId);
      total += folded;
      if (folded < maxRecords || total >= MAX_PER_PASS) return total;
    }
  };

  const runOnce = async () => {
    let total = 0;
    for (const chainId of await unfoldedChains(db)) total += await foldTail(chainId);
    return total;
  };

  return createPeriodicJob({ runOnce, intervalMs, logger, failure: 'folding tool-usage records into the roll-ups failed; the next pass retries' });
}
