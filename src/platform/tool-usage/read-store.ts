import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { PlatformDatabase } from '../db.js';
import type { ToolCallUsage } from './recorder.js';
import type { Dimension } from './schemas.js';
import { ORIGIN_MS, type Block } from './windows.js';

/*
 * The analytics reads (SQL only). Each window is a list of blocks (windows.ts): whole roll-up buckets where one
 * fits, raw records at the ragged edges; a read is the union of both, so every figure is exact. The roll-ups
 * hold the records up to the chain's fold (folds.ts); a roll-up block adds the records past it, read in the
 * same statement, so a fold committing meanwhile neither drops nor doubles a record.
 */

type Db = Kysely<PlatformDatabase>;

export interface Scope {
  chainId: string;
  environment?: string | undefined;
  connectorId?: string | undefined;
}

/** ms since the epoch of the bucket of width `width` seconds holding `column`, aligned from 1970-01-05; 0 without width. */
function bucketOf(column: RawBuilder<unknown>, width: number | undefined): RawBuilder<number> {
  if (width === undefined) return sql<number>`0::float8`;
  const ms = width * 1000;
  return sql<number>`(floor((extract(epoch from ${column}) * 1000 - ${ORIGIN_MS}) / ${ms}) * ${ms} + ${ORIGIN_MS})::float8`;
}

function scoped(scope: Scope): RawBuilder<boolean> {
  return sql<boolean>`chain_id = ${scope.chainId}${scope.environment === undefined ? sql`` : sql` and environment = ${scope.environment}`}${
    scope.connectorId === undefined ? sql`` : sql` and connector_id = ${scope.connectorId}`
  }`;
}

/** How far the chain's roll-ups hold its records. */
async function foldedThrough(db: Db, chainId: string): Promise<number> {
  const row = await db.selectFrom('tool_usage_folds').select('folded_sequence').where('chain_id', '=', chainId).executeTakeFirst();
  return row?.folded_sequence ?? 0;
}

/**
 * The records a block reads raw: all of an edge block's, only those past the fold for a roll-up block. The
 * fold read before the statement (`folded`) only lets the planner see how few records that is: the fold read
 * inside it is the one that counts, as it can only have moved on.
 */
function rawOf(scope: Scope, block: Block, folded: number): RawBuilder<boolean> {
  const unfolded = sql`and sequence > ${folded} and sequence > (select coalesce(max(folded_sequence), 0) from tool_usage_folds where chain_id = ${scope.chainId})`;
  return sql<boolean>`${scoped(scope)} and occurred_at >= ${new Date(block.from)} and occurred_at < ${new Date(block.to)} ${block.width === 0 ? sql`` : unfolded}`;
}

/** Each block's parts: its raw records, and for a roll-up block its roll-up rows as well. */
function partsOf(blocks: Block[], raw: (block: Block) => RawBuilder<unknown>, rolled: (block: Block) => RawBuilder<unknown>): RawBuilder<unknown>[] {
  return blocks.flatMap((block) => (block.width === 0 ? [raw(block)] : [rolled(block), raw(block)]));
}

/** `select` lists over roll-up rows (`count` the rows' sum) and raw records (`count(*)`), for each block. */
function blockUnion(
  folded: number,
  blocks: Block[],
  rollUp: string,
  scope: Scope,
  select: (time: RawBuilder<unknown>, count: RawBuilder<number>) => RawBuilder<unknown>,
  groupBy: string,
): RawBuilder<unknown> {
  const parts = partsOf(
    blocks,
    (block) => sql`select ${select(sql`occurred_at`, sql<number>`count(*)`)} from tool_usage_records where ${rawOf(scope, block, folded)} ${sql.raw(groupBy)}`,
    (block) => sql`select ${select(sql`bucket_start`, sql<number>`sum(count)`)} from ${sql.table(rollUp)} where ${scoped(scope)} and width = ${block.width} and bucket_start >= ${new Date(block.from)} and bucket_start < ${new Date(block.to)} ${sql.raw(groupBy)}`,
  );
  return parts.length === 0 ? sql`select ${select(sql`null::timestamptz`, sql<number>`0`)} where false` : sql.join(parts, sql` union all `);
}

const KEYS: Record<Dimension | 'none', RawBuilder<string>> = {
  none: sql<string>`''`,
  environment: sql<string>`environment`,
  decision: sql<string>`decision`,
  connector: sql<string>`connector_id`,
  tool: sql<string>`connector_id || '/' || tool_name`,
};

/** Counts per bucket of `width` seconds (none: one row) and per dimension key ('' without one). */
export async function countsByBucket(db: Db, scope: Scope, blocks: Block[], width: number | undefined, dimension: Dimension | undefined): Promise<{ bucket: number; key: string; count: number }[]> {
  const key = KEYS[dimension ?? 'none'];
  const union = blockUnion(await foldedThrough(db, scope.chainId), blocks, 'tool_usage_counts', scope, (time, count) => sql`${bucketOf(time, width)} as bucket, ${key} as key, ${count} as n`, 'group by 1, 2');
  const { rows } = await sql<{ bucket: number; key: string; count: number }>`select bucket, key, sum(n)::float8 as count from (${union}) as parts group by 1, 2`.execute(db);
  return rows;
}

/**
 * Calls per bucket (none: one row) and key of a dimension, from the series roll-up; a connector's own
 * counts come from countsByBucket, as the series keep no connector beside another dimension.
 */
export async function seriesByBucket(db: Db, scope: Scope, blocks: Block[], width: number | undefined, dimension: Dimension | undefined): Promise<{ bucket: number; key: string; count: number }[]> {
  const stored = dimension === undefined || dimension === 'environment' ? 'none' : dimension;
  const rolledKey = dimension === undefined ? sql`''` : dimension === 'environment' ? sql`environment` : sql`key`;
  const folded = await foldedThrough(db, scope.chainId);
  const parts = partsOf(
    blocks,
    (block) => sql`select ${bucketOf(sql`occurred_at`, width)} as bucket, ${KEYS[dimension ?? 'none']} as key, count(*) as n from tool_usage_records where ${rawOf(scope, block, folded)} group by 1, 2`,
    (block) => sql`select ${bucketOf(sql`bucket_start`, width)} as bucket, ${rolledKey} as key, sum(count) as n from tool_usage_series
            where ${scoped(scope)} and dimension = ${stored} and width = ${block.width} and bucket_start >= ${new Date(block.from)} and bucket_start < ${new Date(block.to)} group by 1, 2`,
  );
  if (parts.length === 0) return [];
  const { rows } = await sql<{ bucket: number; key: string; count: number }>`select bucket, key, sum(n)::float8 as count from (${sql.join(parts, sql` union all `)}) as parts group by 1, 2`.execute(db);
  return rows;
}

export async function distinctUsers(db: Db, scope: Scope, blocks: Block[]): Promise<number> {
  const union = blockUnion(await foldedThrough(db, scope.chainId), blocks, 'tool_usage_user_counts', scope, () => sql`user_id`, 'group by 1');
  const { rows } = await sql<{ users: number }>`select count(distinct user_id)::float8 as users from (${union}) as parts`.execute(db);
  return rows[0]?.users ?? 0;
}

/** Calls per connector, or per connector and tool; each named as in its latest roll-up bucket or record. */
export async function topCounts(db: Db, scope: Scope, blocks: Block[], byTool: boolean, limit: number): Promise<{ connector_id: string; connector_name: string; tool_name: string; count: number }[]> {
  const tool = byTool ? sql`tool_name` : sql`''`;
  const union = blockUnion(await foldedThrough(db, scope.chainId), blocks, 'tool_usage_counts', scope, (time, count) => sql`connector_id, ${tool} as tool_name, max(${time}) as at, (array_agg(connector_name order by ${time} desc))[1] as connector_name, ${count} as n`, 'group by 1, 2');
  const { rows } = await sql<{ connector_id: string; connector_name: string; tool_name: string; count: number }>`
    select * from (
      select connector_id, tool_name, (array_agg(connector_name order by at desc))[1] as connector_name, sum(n)::float8 as count
      from (${union}) as parts group by 1, 2
    ) as ranked
    order by count desc, ${byTool ? sql`tool_name collate "C", connector_name collate "C"` : sql`connector_name collate "C"`}, connector_id collate "C" limit ${limit}`.execute(db);
  return rows;
}

/** The connector's name in its latest record of the blocks; undefined without one. */
export async function latestConnectorName(db: Db, scope: Scope, blocks: Block[]): Promise<string | undefined> {
  const union = blockUnion(await foldedThrough(db, scope.chainId), blocks, 'tool_usage_counts', scope, (time) => sql`max(${time}) as at, (array_agg(connector_name order by ${time} desc))[1] as connector_name`, '');
  const { rows } = await sql<{ connector_name: string | null }>`select connector_name from (${union}) as parts where at is not null order by at desc limit 1`.execute(db);
  return rows[0]?.connector_name ?? undefined;
}

/** Calls per group and bucket of a connector: a record counts in each of its groups. */
export async function groupsByBucket(db: Db, scope: Scope, blocks: Block[], width: number): Promise<{ bucket: number; group_id: string; group_name: string; at: Date; count: number }[]> {
  const folded = await foldedThrough(db, scope.chainId);
  const parts = partsOf(
    blocks,
    (block) => sql`select ${bucketOf(sql`occurred_at`, width)} as bucket, g->>'id' as group_id, max(occurred_at) as at, (array_agg(g->>'name' order by occurred_at desc))[1] as group_name, count(*) as n
            from tool_usage_records, jsonb_array_elements(usage->'groups') as g where ${rawOf(scope, block, folded)} group by 1, 2`,
    (block) => sql`select ${bucketOf(sql`bucket_start`, width)} as bucket, group_id, max(bucket_start) as at, (array_agg(group_name order by bucket_start desc))[1] as group_name, sum(count) as n
            from tool_usage_group_counts where ${scoped(scope)} and width = ${block.width} and bucket_start >= ${new Date(block.from)} and bucket_start < ${new Date(block.to)} group by 1, 2`,
  );
  if (parts.length === 0) return [];
  const { rows } = await sql<{ bucket: number; group_id: string; group_name: string; at: Date; count: number }>`
    select bucket, group_id, (array_agg(group_name order by at desc))[1] as group_name, max(at) as at, sum(n)::float8 as count from (${sql.join(parts, sql` union all `)}) as parts group by 1, 2`.execute(db);
  return rows;
}

export async function firstRecordAt(db: Db, scope: Scope): Promise<Date | undefined> {
  const { rows } = await sql<{ at: Date | null }>`select min(occurred_at) as at from tool_usage_records where ${scoped(scope)}`.execute(db);
  return rows[0]?.at ?? undefined;
}

export interface TimeWindow {
  from?: Date | undefined;
  to?: Date | undefined;
}

function inWindow(window: TimeWindow): RawBuilder<boolean> {
  return sql<boolean>`${window.from === undefined ? sql`true` : sql`occurred_at >= ${window.from}`} and ${window.to === undefined ? sql`true` : sql`occurred_at < ${window.to}`}`;
}

export interface ActivityPosition {
  at: Date;
  id: string;
}

/** A user's records of one connector, newest first; `before` reads newer ones, nearest first. */
export async function activityPage(
  db: Db,
  filter: Scope & TimeWindow & { userId: string; outcome?: string | undefined; decision?: string | undefined },
  page: { after?: ActivityPosition | undefined; before?: ActivityPosition | undefined; limit: number },
): Promise<{ id: string; occurred_at: Date; usage: ToolCallUsage }[]> {
  const conditions = [
    scoped(filter),
    sql`user_id = ${filter.userId}`,
    inWindow(filter),
    ...(filter.outcome === undefined ? [] : [sql`outcome = ${filter.outcome}`]),
    ...(filter.decision === undefined ? [] : [sql`decision = ${filter.decision}`]),
    ...(page.after ? [sql`(occurred_at, id) < (${page.after.at}::timestamptz, ${page.after.id}::uuid)`] : []),
    ...(page.before ? [sql`(occurred_at, id) > (${page.before.at}::timestamptz, ${page.before.id}::uuid)`] : []),
  ];
  const order = page.before ? sql`occurred_at asc, id asc` : sql`occurred_at desc, id desc`;
  const { rows } = await sql<{ id: string; occurred_at: Date; usage: ToolCallUsage }>`
    select id, occurred_at, usage from tool_usage_records where ${sql.join(conditions, sql` and `)} order by ${order} limit ${page.limit}`.execute(db);
  return rows;
}

export interface ExportRow {
  id: string;
  chain_id: string;
  sequence: number;
  prev_hash: string;
  record_hash: string;
  usage: ToolCallUsage;
}

export async function exportPage(db: Db, filter: Scope & TimeWindow, afterSequence: number, limit: number): Promise<ExportRow[]> {
  const { rows } = await sql<ExportRow>`
    select id, chain_id, sequence, prev_hash, record_hash, usage from tool_usage_records
    where ${scoped(filter)} and ${inWindow(filter)} and sequence > ${afterSequence} order by sequence limit ${limit}`.execute(db);
  return rows;
}

export async function checkpointsBetween(db: Db, chainId: string, after: number, through: number) {
  return db.selectFrom('tool_usage_checkpoints').selectAll().where('chain_id', '=', chainId).where('sequence', '>', after).where('sequence', '<=', through).orderBy('sequence').execute();
}

/** A user's calls per connector and tool in the window: count, latest time, latest connector name. */
export async function userTools(db: Db, filter: Scope & TimeWindow & { userId: string }) {
  const { rows } = await sql<{ connector_id: string; tool_name: string; connector_name: string; last: Date; count: number }>`
    select connector_id, tool_name, (array_agg(connector_name order by occurred_at desc))[1] as connector_name, max(occurred_at) as last, count(*)::float8 as count
    from tool_usage_records where ${scoped(filter)} and user_id = ${filter.userId} and ${inWindow(filter)} group by 1, 2`.execute(db);
  return rows;
}

export async function userBuckets(db: Db, filter: Scope & TimeWindow & { userId: string }, width: number): Promise<{ bucket: number; count: number }[]> {
  const { rows } = await sql<{ bucket: number; count: number }>`
    select ${bucketOf(sql`occurred_at`, width)} as bucket, count(*)::float8 as count
    from tool_usage_records where ${scoped(filter)} and user_id = ${filter.userId} and ${inWindow(filter)} group by 1`.execute(db);
  return rows;
}
