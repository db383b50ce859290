import { sql, type Kysely, type Transaction } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import { COUNT_WIDTHS, ORIGIN_MS, USER_WIDTHS } from './windows.js';

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

const widths = (list: readonly number[]) => sql.join(list.map((width) => sql`(${sql.lit(width)})`));

/**
 * Adds the records (from, through] of the chain to every roll-up and moves the fold to `through`, in one
 * statement: the roll-ups and the fold move together. Buckets are aligned as windows.ts aligns them (whole
 * seconds from the origin); a name (connector, group) is the one of the chain's latest record in the bucket.
 */
export async function foldRecords(trx: Transaction<PlatformDatabase>, chainId: string, from: number, through: number): Promise<void> {
  const origin = sql.lit(ORIGIN_MS / 1000);
  await sql`
    with tail as (select * from tool_usage_records where chain_id = ${chainId} and sequence > ${from} and sequence <= ${through}),
    buckets as (
      select t.*, w.width, to_timestamp(floor((extract(epoch from t.occurred_at) - ${origin}) / w.width) * w.width + ${origin}) as bucket_start
      from tail t cross join (values ${widths(COUNT_WIDTHS)}) as w (width)),
    counts as (
      insert into tool_usage_counts (chain_id, width, bucket_start, environment, connector_id, tool_name, decision, connector_name, count)
      select chain_id, width, bucket_start, environment, connector_id, tool_name, decision, (array_agg(connector_name order by sequence desc))[1], count(*)
      from buckets group by 1, 2, 3, 4, 5, 6, 7
      on conflict (chain_id, width, bucket_start, environment, connector_id, tool_name, decision)
      do update set count = tool_usage_counts.count + excluded.count, connector_name = excluded.connector_name),
    series as (
      insert into tool_usage_series (chain_id, dimension, width, bucket_start, environment, key, count)
      select chain_id, d.dimension, width, bucket_start, environment, d.key, count(*)
      from buckets cross join lateral (values ('none', ''), ('decision', decision), ('connector', connector_id), ('tool', connector_id || '/' || tool_name)) as d (dimension, key)
      group by 1, 2, 3, 4, 5, 6
      on conflict (chain_id, dimension, width, bucket_start, environment, key) do update set count = tool_usage_series.count + excluded.count),
    users as (
      insert into tool_usage_user_counts (chain_id, width, bucket_start, environment, user_id, count)
      select chain_id, width, bucket_start, environment, user_id, count(*)
      from buckets where width in (select width from (values ${widths(USER_WIDTHS)}) as u (width)) group by 1, 2, 3, 4, 5
      on conflict (chain_id, width, bucket_start, environment, user_id) do update set count = tool_usage_user_counts.count + excluded.count),
    groups as (
      insert into tool_usage_group_counts (chain_id, width, bucket_start, environment, connector_id, group_id, group_name, count)
      select chain_id, width, bucket_start, environment, connector_id, g->>'id', (array_agg(g->>'name' order by sequence desc))[1], count(*)
      from buckets cross join jsonb_array_elements(usage->'groups') as g group by 1, 2, 3, 4, 5, 6
      on conflict (chain_id, width, bucket_start, environment, connector_id, group_id)
      do update set count = tool_usage_group_counts.count + excluded.count, group_name = excluded.group_name)
    update tool_usage_folds set folded_sequence = ${through} where chain_id = ${chainId}`.execute(trx);
}
