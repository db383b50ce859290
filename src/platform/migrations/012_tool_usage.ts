import { sql, type Kysely } from 'kysely';

/*
 * Tool-call usage (PLATFORM-API Part 4 §8, §9): one hash chain per gateway, its records (never updated), its
 * signed checkpoints, and the roll-ups the analytics read instead of the raw rows. The roll-ups are written in
 * the records' own transaction, under the chain head's lock, so they are always exactly the records' counts.
 * `width` is the roll-up's bucket width in seconds; buckets are aligned from 1970-01-05T00:00:00Z.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table tool_usage_chains (
      chain_id text primary key,
      head_sequence bigint not null,
      head_hash text not null,
      head_at timestamptz not null,
      signed_sequence bigint not null
    )`.execute(db);
  await sql`
    create table tool_usage_records (
      id uuid primary key,
      chain_id text not null,
      sequence bigint not null,
      prev_hash text not null,
      record_hash text not null,
      usage jsonb not null,
      occurred_at timestamptz not null,
      environment text not null,
      connector_id text not null,
      connector_name text not null,
      tool_name text not null,
      user_id text not null,
      decision text not null,
      outcome text not null,
      unique (chain_id, sequence)
    )`.execute(db);
  await sql`create index tool_usage_records_by_time on tool_usage_records (chain_id, occurred_at)`.execute(db);
  await sql`create index tool_usage_records_by_user on tool_usage_records (chain_id, user_id, connector_id, occurred_at desc, id desc)`.execute(db);
  await sql`
    create table tool_usage_checkpoints (
      chain_id text not null,
      sequence bigint not null,
      chain_hash text not null,
      hash_alg text not null,
      sig_alg text not null,
      key_id text not null,
      signed_at timestamptz not null,
      signature text not null,
      primary key (chain_id, sequence)
    )`.execute(db);
  await sql`
    create table tool_usage_counts (
      chain_id text not null,
      width integer not null,
      bucket_start timestamptz not null,
      environment text not null,
      connector_id text not null,
      tool_name text not null,
      decision text not null,
      connector_name text not null,
      count bigint not null,
      primary key (chain_id, width, bucket_start, environment, connector_id, tool_name, decision)
    )`.execute(db);
  // calls per bucket by one dimension's key ('' for dimension none): what the summary and the time series
  // read, a few rows per bucket where tool_usage_counts holds one per connector, tool and decision
  await sql`
    create table tool_usage_series (
      chain_id text not null,
      dimension text not null check (dimension in ('none', 'decision', 'connector', 'tool')),
      width integer not null,
      bucket_start timestamptz not null,
      environment text not null,
      key text not null,
      count bigint not null,
      primary key (chain_id, dimension, width, bucket_start, environment, key)
    )`.execute(db);
  await sql`
    create table tool_usage_user_counts (
      chain_id text not null,
      width integer not null,
      bucket_start timestamptz not null,
      environment text not null,
      user_id text not null,
      count bigint not null,
      primary key (chain_id, width, bucket_start, environment, user_id)
    )`.execute(db);
  await sql`
    create table tool_usage_group_counts (
      chain_id text not null,
      width integer not null,
      bucket_start timestamptz not null,
      environment text not null,
      connector_id text not null,
      group_id text not null,
      group_name text not null,
      count bigint not null,
      primary key (chain_id, width, bucket_start, environment, connector_id, group_id)
    )`.execute(db);
}
