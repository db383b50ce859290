import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { createPeriodicJob, type PeriodicJob } from '../../core/periodic-job.js';
import { signDetached } from '../../core/signing/detached-jws.js';
import type { PlatformDatabase } from '../db.js';
import type { SigningKey } from '../signing/keyset.js';
import { checkpointPayload, HASH_ALG, SIG_ALG } from './chain.js';
import { insertCheckpoint, lockStaleHeads, markSigned } from './store.js';
import type { ToolUsageCheckpointsTable } from './tables.js';

export interface CheckpointSigner {
  /** The signed checkpoint of a chain's record, for the append that writes the record to store with it. */
  checkpoint(chainId: string, sequence: number, chainHash: string): Promise<Insertable<ToolUsageCheckpointsTable>>;
  /** Signs and stores a checkpoint inside a transaction that holds the chain head's lock (so one replica signs it). */
  sign(trx: Transaction<PlatformDatabase>, chainId: string, sequence: number, chainHash: string): Promise<void>;
}

export function createCheckpointSigner(options: { key: SigningKey; clock: Clock }): CheckpointSigner {
  const { key, clock } = options;
  const checkpoint = async (chainId: string, sequence: number, chainHash: string) => {
    const signedAt = clock.now();
    const payload = checkpointPayload({ chain_hash: chainHash, chain_id: chainId, sequence, signed_at: signedAt.toISOString() });
    const signature = await signDetached(payload, key.privateKey, key.kid);
    return { chain_id: chainId, sequence, chain_hash: chainHash, hash_alg: HASH_ALG, sig_alg: SIG_ALG, key_id: key.kid, signed_at: signedAt, signature };
  };
  return {
    checkpoint,
    async sign(trx, chainId, sequence, chainHash) {
      await insertCheckpoint(trx, await checkpoint(chainId, sequence, chainHash));
      await markSigned(trx, chainId, sequence);
    },
  };
}

/** `runOnce` signs every head left unsigned for the interval and returns how many it signed. */
export type CheckpointJob = PeriodicJob<number>;

export interface CheckpointJobOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  logger: Logger;
  signer: CheckpointSigner;
  /** `toolUsage.checkpointInterval`, in milliseconds. */
  intervalMs: number;
}

/**
 * Heads unsigned for `checkpointInterval` (the every-Nth checkpoints are signed with the records). The heads
 * are locked with SKIP LOCKED: a head another replica is signing, or appending to, is left to it.
 */
export function createCheckpointJob(options: CheckpointJobOptions): CheckpointJob {
  const { db, clock, logger, signer, intervalMs } = options;
  const tickMs = Math.max(1_000, Math.min(intervalMs / 4, 15_000));
  const runOnce = () =>
    db.transaction().execute(async (trx) => {
      const heads = await lockStaleHeads(trx, new Date(clock.now().getTime() - intervalMs));
      for (const head of heads) await signer.sign(trx, head.chain_id, head.head_sequence, head.head_hash);
      return heads.length;
    });
  return createPeriodicJob({ runOnce, intervalMs: tickMs, logger, failure: 'signing tool-usage checkpoints failed; the next pass retries' });
}
