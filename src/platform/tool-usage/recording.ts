import type { Insertable, Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { Ids } from '../../core/ids.js';
import { createBatcher } from '../budgets/batcher.js';
import type { PlatformDatabase } from '../db.js';
import { GENESIS_HASH, recordHash } from './chain.js';
import type { CheckpointSigner } from './checkpoints.js';
import type { ToolCallUsage, ToolUsageRecorder } from './recorder.js';
import { appendAt, lockHead, type Appended, type ChainHead } from './store.js';
import type { ToolUsageCountsTable, ToolUsageGroupCountsTable, ToolUsageSeriesTable, ToolUsageUserCountsTable } from './tables.js';
import { alignDown, COUNT_WIDTHS, USER_WIDTHS } from './windows.js';

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

/** Sums roll-up rows by key, as one statement may add to each key once. */
class Tally<Row extends { count: number }> {
  private readonly rows = new Map<string, Row>();
  add(key: unknown[], row: Omit<Row, 'count'>): void {
    const id = JSON.stringify(key);
    const found = this.rows.get(id);
    if (found) Object.assign(found, row, { count: found.count + 1 });
    else this.rows.set(id, { ...row, count: 1 } as Row);
  }
  values(): Row[] {
    return [...this.rows.values()];
  }
}

/**
 * The recorder with group commit: calls arriving while an append is in flight go into the next one, which writes
 * each chain's records with the head's move in one statement. A record's promise settles once it is committed.
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

  /** The records linked after `from`, what the roll-ups gain from them, and the checkpoints due among them. */
  const chained = async (chainId: string, from: ChainHead, usages: ToolCallUsage[]): Promise<{ appended: Appended; to: ChainHead }> => {
    const records: Appended['records'] = [];
    const checkpoints: Appended['checkpoints'] = [];
    const counts = new Tally<Insertable<ToolUsageCountsTable> & { count: number }>();
    const series = new Tally<Insertable<ToolUsageSeriesTable> & { count: number }>();
    const users = new Tally<Insertable<ToolUsageUserCountsTable> & { count: number }>();
    const groups = new Tally<Insertable<ToolUsageGroupCountsTable> & { count: number }>();
    let head = from;
    for (const usage of usages) {
      const sequence = head.head_sequence + 1;
      const hash = recordHash(chainId, sequence, head.head_hash, usage);
      const at = new Date(usage.occurred_at);
      records.push({
        id: ids.uuid(),
        chain_id: chainId,
        sequence,
        prev_hash: head.head_hash,
        record_hash: hash,
        usage,
        occurred_at: at,
        environment: usage.environment,
        connector_id: usage.connector_id,
        connector_name: usage.connector_name,
        tool_name: usage.tool_name,
        user_id: usage.user_id,
        decision: usage.decision,
        outcome: usage.outcome,
      });
      const base = { chain_id: chainId, environment: usage.environment };
      for (const width of COUNT_WIDTHS) {
        const bucket = alignDown(at.getTime(), width);
        counts.add([width, bucket, usage.environment, usage.connector_id, usage.tool_name, usage.decision], {
          ...base,
          width,
          bucket_start: new Date(bucket),
          connector_id: usage.connector_id,
          tool_name: usage.tool_name,
          decision: usage.decision,
          connector_name: usage.connector_name,
        });
        const keys = { none: '', decision: usage.decision, connector: usage.connector_id, tool: `${usage.connector_id}/${usage.tool_name}` } as const;
        for (const [dimension, key] of Object.entries(keys) as [keyof typeof keys, string][]) {
          series.add([dimension, width, bucket, usage.environment, key], { ...base, dimension, width, bucket_start: new Date(bucket), key });
        }
        for (const group of usage.groups) {
          groups.add([width, bucket, usage.environment, usage.connector_id, group.id], { ...base, width, bucket_start: new Date(bucket), connector_id: usage.connector_id, group_id: group.id, group_name: group.name });
        }
      }
      for (const width of USER_WIDTHS) {
        const bucket = alignDown(at.getTime(), width);
        users.add([width, bucket, usage.environment, usage.user_id], { ...base, width, bucket_start: new Date(bucket), user_id: usage.user_id });
      }
      if (signer && sequence % checkpointEvery === 0) checkpoints.push(await signer.checkpoint(chainId, sequence, hash));
      head = { head_sequence: sequence, head_hash: hash };
    }
    return { appended: { records, counts: counts.values(), series: series.values(), users: users.values(), groups: groups.values(), checkpoints }, to: head };
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
  }, options.maxBatch ?? 100);

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
