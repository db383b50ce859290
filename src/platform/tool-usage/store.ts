import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { ToolUsageCheckpointsTable, ToolUsageCountsTable, ToolUsageGroupCountsTable, ToolUsageRecordsTable, ToolUsageSeriesTable, ToolUsageUserCountsTable } from './tables.js';

/* The writes of the tool-usage chain: its head, records, roll-ups and checkpoints (SQL only). */

type Trx = Transaction<PlatformDatabase>;

export interface ChainHead {
  head_sequence: number;
  head_hash: string;
}

/** Locks the chain's head row (creating it at sequence 0), so appends to one chain run one at a time across replicas. */
export async function lockHead(trx: Trx, chainId: string, genesis: string, now: Date): Promise<ChainHead> {
  await trx
    .insertInto('tool_usage_chains')
    .values({ chain_id: chainId, head_sequence: 0, head_hash: genesis, head_at: now, signed_sequence: 0 })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .execute();
  const head = await trx.selectFrom('tool_usage_chains').select(['head_sequence', 'head_hash']).where('chain_id', '=', chainId).forUpdate().executeTakeFirstOrThrow();
  return head;
}

export async function moveHead(trx: Trx, chainId: string, head: ChainHead, at: Date): Promise<void> {
  await trx.updateTable('tool_usage_chains').set({ head_sequence: head.head_sequence, head_hash: head.head_hash, head_at: at }).where('chain_id', '=', chainId).execute();
}

/** Rows of one multi-row statement: well below PostgreSQL's 65,535 parameters for every table here. */
const CHUNK = 500;

async function inChunks<T>(rows: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let index = 0; index < rows.length; index += CHUNK) await write(rows.slice(index, index + CHUNK));
}

export async function insertRecords(trx: Trx, rows: Insertable<ToolUsageRecordsTable>[]): Promise<void> {
  await inChunks(rows, (chunk) => trx.insertInto('tool_usage_records').values(chunk).execute());
}

/** Adds to the roll-ups; each key appears once among `rows` (ON CONFLICT cannot touch a row twice in one statement). */
export async function addCounts(trx: Trx, rows: Insertable<ToolUsageCountsTable>[]): Promise<void> {
  await inChunks(rows, (chunk) =>
    trx
      .insertInto('tool_usage_counts')
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .columns(['chain_id', 'width', 'bucket_start', 'environment', 'connector_id', 'tool_name', 'decision'])
          .doUpdateSet({ count: sql`tool_usage_counts.count + excluded.count`, connector_name: sql`excluded.connector_name` }),
      )
      .execute(),
  );
}

export async function addSeries(trx: Trx, rows: Insertable<ToolUsageSeriesTable>[]): Promise<void> {
  await inChunks(rows, (chunk) =>
    trx
      .insertInto('tool_usage_series')
      .values(chunk)
      .onConflict((conflict) => conflict.columns(['chain_id', 'dimension', 'width', 'bucket_start', 'environment', 'key']).doUpdateSet({ count: sql`tool_usage_series.count + excluded.count` }))
      .execute(),
  );
}

export async function addUserCounts(trx: Trx, rows: Insertable<ToolUsageUserCountsTable>[]): Promise<void> {
  await inChunks(rows, (chunk) =>
    trx
      .insertInto('tool_usage_user_counts')
      .values(chunk)
      .onConflict((conflict) => conflict.columns(['chain_id', 'width', 'bucket_start', 'environment', 'user_id']).doUpdateSet({ count: sql`tool_usage_user_counts.count + excluded.count` }))
      .execute(),
  );
}

export async function addGroupCounts(trx: Trx, rows: Insertable<ToolUsageGroupCountsTable>[]): Promise<void> {
  await inChunks(rows, (chunk) =>
    trx
      .insertInto('tool_usage_group_counts')
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .columns(['chain_id', 'width', 'bucket_start', 'environment', 'connector_id', 'group_id'])
          .doUpdateSet({ count: sql`tool_usage_group_counts.count + excluded.count`, group_name: sql`excluded.group_name` }),
      )
      .execute(),
  );
}

export async function insertCheckpoint(trx: Trx, checkpoint: Insertable<ToolUsageCheckpointsTable>): Promise<void> {
  await trx.insertInto('tool_usage_checkpoints').values(checkpoint).onConflict((conflict) => conflict.columns(['chain_id', 'sequence']).doNothing()).execute();
}

/** Heads appended before `before` and not yet signed, locked for this transaction; those another replica is signing are skipped. */
export async function lockStaleHeads(trx: Trx, before: Date): Promise<{ chain_id: string; head_sequence: number; head_hash: string }[]> {
  return trx
    .selectFrom('tool_usage_chains')
    .select(['chain_id', 'head_sequence', 'head_hash'])
    .where(sql<boolean>`head_sequence > signed_sequence`)
    .where('head_at', '<=', before)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function markSigned(trx: Trx, chainId: string, sequence: number): Promise<void> {
  await trx.updateTable('tool_usage_chains').set({ signed_sequence: sequence }).where('chain_id', '=', chainId).where('signed_sequence', '<', sequence).execute();
}

export type Db = Kysely<PlatformDatabase>;
