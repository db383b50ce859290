import { sql, type Kysely } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { FoldedRecord, RollUps } from './rollups.js';
import { movedRows } from './store.js';

/* The folds of records into the roll-ups (SQL only). */

type Db = Kysely<PlatformDatabase>;

/** Chains with records past their fold. */
export async function unfoldedChains(db: Db): Promise<string[]> {
  const { rows } = await sql<{ chain_id: string }>`
    select chain_id from tool_usage_chains c
    where head_sequence > coalesce((select folded_sequence from tool_usage_folds f where f.chain_id = c.chain_id), 0)`.execute(db);
  return rows.map((row) => row.chain_id);
}

/** Where the chain's fold is (0 before its first) and the chain's head. */
export async function foldPosition(db: Db, chainId: string): Promise<{ folded: number; head: number }> {
  const { rows } = await sql<{ folded: number | string; head: number | string }>`
    select coalesce((select folded_sequence from tool_usage_folds where chain_id = ${chainId}), 0) as folded, head_sequence as head
    from tool_usage_chains where chain_id = ${chainId}`.execute(db);
  const row = rows[0];
  return { folded: Number(row?.folded ?? 0), head: Number(row?.head ?? 0) };
}

/** The records (from, through] of the chain, with what the roll-ups count of them. */
export async function readTail(db: Db, chainId: string, from: number, through: number): Promise<FoldedRecord[]> {
  const { rows } = await sql<Omit<FoldedRecord, 'sequence'> & { sequence: number | string }>`
    select sequence, occurred_at, environment, connector_id, connector_name, tool_name, decision, user_id, coalesce(usage->'groups', '[]'::jsonb) as groups
    from tool_usage_records where chain_id = ${chainId} and sequence > ${from} and sequence <= ${through}`.execute(db);
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence) }));
}

/**
 * Moves the fold from `from` to `through` and adds the chunk's roll-ups, in one statement and only if the fold
 * is still at `from` (as appendAt moves a head): no transaction holds the connection while the chunk is counted,
 * and a replica that folded the same chunk first leaves this one adding nothing (false).
 */
export async function addRollUps(db: Db, chainId: string, rollUps: RollUps, from: number, through: number): Promise<boolean> {
  const ofChain = <Row extends object>(rows: Row[]) => rows.map((row) => ({ ...row, chain_id: chainId }));
  const { rows } = await sql<{ moved: number }>`
    with moved as (
      insert into tool_usage_folds (chain_id, folded_sequence) values (${chainId}, ${through})
      on conflict (chain_id) do update set folded_sequence = excluded.folded_sequence where tool_usage_folds.folded_sequence = ${from}
      returning chain_id),
    counts as (
      insert into tool_usage_counts ${movedRows('tool_usage_counts', ofChain(rollUps.counts))}
      on conflict (chain_id, width, bucket_start, environment, connector_id, tool_name, decision)
      do update set count = tool_usage_counts.count + excluded.count, connector_name = excluded.connector_name),
    series as (
      insert into tool_usage_series ${movedRows('tool_usage_series', ofChain(rollUps.series))}
      on conflict (chain_id, dimension, width, bucket_start, environment, key) do update set count = tool_usage_series.count + excluded.count),
    users as (
      insert into tool_usage_user_counts ${movedRows('tool_usage_user_counts', ofChain(rollUps.users))}
      on conflict (chain_id, width, bucket_start, environment, user_id) do update set count = tool_usage_user_counts.count + excluded.count),
    groups as (
      insert into tool_usage_group_counts ${movedRows('tool_usage_group_counts', ofChain(rollUps.groups))}
      on conflict (chain_id, width, bucket_start, environment, connector_id, group_id)
      do update set count = tool_usage_group_counts.count + excluded.count, group_name = excluded.group_name)
    select count(*)::int as moved from moved`.execute(db);
  return (rows[0]?.moved ?? 0) > 0;
}
