import { sql, type Kysely, type Transaction } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { FoldedRecord, RollUps } from './rollups.js';

/* The folds of records into the roll-ups (SQL only). */

type Db = Kysely<PlatformDatabase>;

/** Chains with records past their fold. */
export async function unfoldedChains(db: Db): Promise<string[]> {
  const { rows } = await sql<{ chain_id: string }>`
    select chain_id from tool_usage_chains c
    where head_sequence > coalesce((select folded_sequence from tool_usage_folds f where f.chain_id = c.chain_id), 0)`.execute(db);
  return rows.map((row) => row.chain_id);
}

/** Locks the chain's fold (creating it at 0) for the rest of the transaction: where it is, and the chain's head. */
export async function lockFold(trx: Transaction<PlatformDatabase>, chainId: string): Promise<{ folded: number; head: number }> {
  const { rows } = await sql<{ folded: number | string; head: number | string | null }>`
    insert into tool_usage_folds (chain_id, folded_sequence) values (${chainId}, 0)
    on conflict (chain_id) do update set folded_sequence = tool_usage_folds.folded_sequence
    returning folded_sequence as folded, (select head_sequence from tool_usage_chains where chain_id = ${chainId}) as head`.execute(trx);
  const row = rows[0];
  if (!row) throw new Error(`the fold of chain ${chainId} was neither inserted nor locked`);
  return { folded: Number(row.folded), head: Number(row.head ?? 0) };
}

/** The records (from, through] of the chain, with what the roll-ups count of them. */
export async function readTail(trx: Transaction<PlatformDatabase>, chainId: string, from: number, through: number): Promise<FoldedRecord[]> {
  const { rows } = await sql<Omit<FoldedRecord, 'sequence'> & { sequence: number | string }>`
    select sequence, occurred_at, environment, connector_id, connector_name, tool_name, decision, user_id, coalesce(usage->'groups', '[]'::jsonb) as groups
    from tool_usage_records where chain_id = ${chainId} and sequence > ${from} and sequence <= ${through}`.execute(trx);
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence) }));
}

const added = (table: string, rows: unknown[]) => sql`select * from json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::json)`;

/** Adds a chunk's roll-ups and moves the fold to `through`, in one statement: the roll-ups and the fold move together. */
export async function addRollUps(trx: Transaction<PlatformDatabase>, chainId: string, rollUps: RollUps, through: number): Promise<void> {
  const ofChain = <Row extends object>(rows: Row[]) => rows.map((row) => ({ ...row, chain_id: chainId }));
  await sql`
    with counts as (
      insert into tool_usage_counts ${added('tool_usage_counts', ofChain(rollUps.counts))}
      on conflict (chain_id, width, bucket_start, environment, connector_id, tool_name, decision)
      do update set count = tool_usage_counts.count + excluded.count, connector_name = excluded.connector_name),
    series as (
      insert into tool_usage_series ${added('tool_usage_series', ofChain(rollUps.series))}
      on conflict (chain_id, dimension, width, bucket_start, environment, key) do update set count = tool_usage_series.count + excluded.count),
    users as (
      insert into tool_usage_user_counts ${added('tool_usage_user_counts', ofChain(rollUps.users))}
      on conflict (chain_id, width, bucket_start, environment, user_id) do update set count = tool_usage_user_counts.count + excluded.count),
    groups as (
      insert into tool_usage_group_counts ${added('tool_usage_group_counts', ofChain(rollUps.groups))}
      on conflict (chain_id, width, bucket_start, environment, connector_id, group_id)
      do update set count = tool_usage_group_counts.count + excluded.count, group_name = excluded.group_name)
    update tool_usage_folds set folded_sequence = ${through} where chain_id = ${chainId}`.execute(trx);
}
