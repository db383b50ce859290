import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { Ids } from '../../core/ids.js';
import { createBatcher } from '../budgets/batcher.js';
import type { PlatformDatabase } from '../db.js';
import { GENESIS_HASH, recordHash } from './chain.js';
import type { CheckpointSigner } from './checkpoints.js';
import type { ToolCallUsage, ToolUsageRecorder } from './recorder.js';
import { appendAt, lockHead, type Appended, type ChainHead } from './store.js';

export interface ToolUsageRecorderOptions {
  db: Kysely<PlatformDatabase>;
  clock: Clock;
  ids: Ids;
  /** Absent without a signing block: records are written, checkpoints are not. */
  signer: CheckpointSigner | undefined;
  /** `toolUsage.checkpointEvery`. */
  checkpointEvery: number;
  /** Most records one transaction appends. */
  maxBatch?: number;
}

/**
 * The recorder with group commit: calls arriving in the same event-loop turn, or while an append is in flight, go
 * into one append, which writes each chain's records with the head's move in one statement. A record's promise settles once it is committed.
 */
export interface BatchingRecorder extends ToolUsageRecorder {
  /** Waits for every record already handed over to be committed or refused (before the database closes). */
  flush(): Promise<void>;
}

export function createToolUsageRecorder(options: ToolUsageRecorderOptions): BatchingRecorder {
  const { db, clock, ids, signer, checkpointEvery } = options;

  // the last head this replica wrote per chain: the next append starts from it in one statement without a lock,
  // and takes the lock only when another replica moved the head in between
  const heads = new Map<string, ChainHead>();

  const appendChain = async (chainId: string, usages: ToolCallUsage[]) => {
    const known = heads.get(chainId);
    if (known) {
      const { appended, to } = await chained(chainId, known, usages);
      if (await appendAt(db, chainId, appended, known, to, clock.now())) {
        heads.set(chainId, to);
        return;
      }
    }
    // first append, or another replica moved the head: append under the head's row lock, which cannot miss
    const to = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const from = await lockHead(trx, chainId, GENESIS_HASH, now);
      const next = await chained(chainId, from, usages);
      if (!(await appendAt(trx, chainId, next.appended, from, next.to, now))) throw new Error(`the head of chain ${chainId} moved under its row lock`);
      return next.to;
    });
    heads.set(chainId, to);
  };

  /** The records linked after `from`, and the checkpoints due among them. */
  const chained = async (chainId: string, from: ChainHead, usages: ToolCallUsage[]): Promise<{ appended: Appended; to: ChainHead }> => {
    const records: Appended['records'] = [];
    const checkpoints: Appended['checkpoints'] = [];
    let head = from;
    for (const usage of usages) {
      const sequence = head.head_sequence + 1;
      const hash = recordHash(chainId, sequence, head.head_hash, usage);
      records.push({
        id: ids.uuid(),
        chain_id: chainId,
        sequence,
        prev_hash: head.head_hash,
        record_hash: hash,
        usage,
        occurred_at: new Date(usage.occurred_at),
        environment: usage.environment,
        connector_id: usage.connector_id,
        connector_name: usage.connector_name,
        tool_name: usage.tool_name,
        user_id: usage.user_id,
        decision: usage.decision,
        outcome: usage.outcome,
      });
      if (signer && sequence % checkpointEvery === 0) checkpoints.push(await signer.checkpoint(chainId, sequence, hash));
      head = { head_sequence: sequence, head_hash: hash };
    }
    return { appended: { records, checkpoints }, to: head };
  };

  const batcher = createBatcher<ToolCallUsage, undefined>(async (usages) => {
    const byChain = new Map<string, ToolCallUsage[]>();
    for (const usage of usages) {
      const chain = byChain.get(usage.gateway_id);
      if (chain) chain.push(usage);
      else byChain.set(usage.gateway_id, [usage]);
    }
    for (const [chainId, chain] of byChain) await appendChain(chainId, chain);
    return usages.map(() => undefined);
  }, options.maxBatch ?? 100, 'turn');

  const inFlight = new Set<Promise<unknown>>();
  return {
    record(usage) {
      const committed = batcher.submit(usage);
      const settled = committed.catch(() => undefined).finally(() => inFlight.delete(settled));
      inFlight.add(settled);
      return committed;
    },
    async flush() {
      await Promise.all([...inFlight]);
    },
  };
}
