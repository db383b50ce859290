import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { Ids } from '../../core/ids.js';
import { createBatcher, withRetries } from '../budgets/batcher.js';
import type { PlatformDatabase } from '../db.js';
import { GENESIS_HASH, recordHash } from './chain.js';
import type { CheckpointSigner } from './checkpoints.js';
import type { ToolCallUsage, ToolUsageRecorder } from './recorder.js';
import { addCounts, addGroupCounts, addSeries, addUserCounts, insertRecords, lockHead, moveHead } from './store.js';
import type { ToolUsageCountsTable, ToolUsageGroupCountsTable, ToolUsageRecordsTable, ToolUsageSeriesTable, ToolUsageUserCountsTable } from './tables.js';
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
 * The recorder with group commit: calls arriving while a transaction is in flight go into the next one, which
 * takes each chain head's row lock once for all its records. A record's promise settles once it is committed.
 */
export interface BatchingRecorder extends ToolUsageRecorder {
  /** Waits for every record already handed over to be committed or refused (before the database closes). */
  flush(): Promise<void>;
}

export function createToolUsageRecorder(options: ToolUsageRecorderOptions): BatchingRecorder {
  const { db, clock, ids, signer, checkpointEvery } = options;

  const appendChain = async (trx: Transaction<PlatformDatabase>, chainId: string, usages: ToolCallUsage[]) => {
    const now = clock.now();
    const head = await lockHead(trx, chainId, GENESIS_HASH, now);
    const records: Insertable<ToolUsageRecordsTable>[] = [];
    const counts = new Tally<Insertable<ToolUsageCountsTable> & { count: number }>();
    const series = new Tally<Insertable<ToolUsageSeriesTable> & { count: number }>();
    const users = new Tally<Insertable<ToolUsageUserCountsTable> & { count: number }>();
    const groups = new Tally<Insertable<ToolUsageGroupCountsTable> & { count: number }>();
    const toSign: { sequence: number; hash: string }[] = [];
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
        usage: JSON.stringify(usage),
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
      if (sequence % checkpointEvery === 0) toSign.push({ sequence, hash });
      head.head_sequence = sequence;
      head.head_hash = hash;
    }
    await insertRecords(trx, records);
    await addCounts(trx, counts.values());
    await addSeries(trx, series.values());
    await addUserCounts(trx, users.values());
    await addGroupCounts(trx, groups.values());
    if (signer) for (const checkpoint of toSign) await signer.sign(trx, chainId, checkpoint.sequence, checkpoint.hash);
    await moveHead(trx, chainId, head, now);
  };

  const batcher = createBatcher<ToolCallUsage, undefined>(async (usages) => {
    const byChain = new Map<string, ToolCallUsage[]>();
    for (const usage of usages) byChain.set(usage.gateway_id, [...(byChain.get(usage.gateway_id) ?? []), usage]);
    // heads are always locked in one order, so two replicas' batches never wait on each other in a cycle
    const chains = [...byChain.keys()].sort();
    await withRetries(() =>
      db.transaction().execute(async (trx) => {
        for (const chainId of chains) await appendChain(trx, chainId, byChain.get(chainId) ?? []);
      }),
    );
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
