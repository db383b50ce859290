import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { ToolUsageCheckpointsTable, ToolUsageRecordsTable } from './tables.js';

/* The writes of the tool-usage chain: its head, records, roll-ups and checkpoints (SQL only). */

type Trx = Transaction<PlatformDatabase>;
export type Db = Kysely<PlatformDatabase>;

export interface ChainHead {
  head_sequence: number;
  head_hash: string;
}

/** Locks the chain's head row (creating it at sequence 0 on the first append) for the rest of the transaction. */
export async function lockHead(trx: Trx, chainId: string, genesis: string, now: Date): Promise<ChainHead> {
  const { rows } = await sql<{ head_sequence: number | string; head_hash: string }>`
    insert into tool_usage_chains (chain_id, head_sequence, head_hash, head_at, signed_sequence) values (${chainId}, 0, ${genesis}, ${now}, 0)
    on conflict (chain_id) do update set head_at = tool_usage_chains.head_at
    returning head_sequence, head_hash`.execute(trx);
  const head = rows[0];
  if (!head) throw new Error(`the head of chain ${chainId} was neither inserted nor locked`);
  return { head_sequence: Number(head.head_sequence), head_hash: head.head_hash };
}

/** What one append writes besides moving the head: the records and the checkpoints. */
export interface Appended {
  /** `usage` as the object it is: the statement takes every row as JSON. */
  records: (Omit<Insertable<ToolUsageRecordsTable>, 'usage'> & { usage: object })[];
  checkpoints: Insertable<ToolUsageCheckpointsTable>[];
}

/** The rows of `table` in `rows`, kept only when the statement's `moved` CTE moved something (a chain head, a fold). */
export const movedRows = (table: string, rows: unknown[]) =>
  sql`select r.* from json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::json) as r where exists (select from moved)`;

/**
 * Appends to a chain in one statement (data-modifying CTEs, no explicit transaction: each round trip costs the
 * embedded engine about half a millisecond): the head moves from `from` to `to` only if it is still at `from`,
 * and the records and checkpoints are written only with it (the roll-ups follow in the background, folds.ts).
 * An append racing another replica's waits for its row lock, then finds the head moved and writes nothing:
 * false, and the caller appends again under the head's lock.
 */
export async function appendAt(db: Db, chainId: string, appended: Appended, from: ChainHead, to: ChainHead, at: Date): Promise<boolean> {
  const signedThrough = Math.max(0, ...appended.checkpoints.map((checkpoint) => checkpoint.sequence));
  const { rows } = await sql<{ moved: number }>`
    with moved as (
      update tool_usage_chains set head_sequence = ${to.head_sequence}, head_hash = ${to.head_hash}, head_at = ${at}, signed_sequence = greatest(signed_sequence, ${signedThrough})
      where chain_id = ${chainId} and head_sequence = ${from.head_sequence} and head_hash = ${from.head_hash}
      returning chain_id),
    records as (insert into tool_usage_records ${movedRows('tool_usage_records', appended.records)}),
    checkpoints as (insert into tool_usage_checkpoints ${movedRows('tool_usage_checkpoints', appended.checkpoints)} on conflict (chain_id, sequence) do nothing)
    select count(*)::int as moved from moved`.execute(db);
  return (rows[0]?.moved ?? 0) > 0;
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

