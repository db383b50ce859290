/**
 * `npm run bench:tool-usage`: the tool-call analytics over 1,000,000 records, on PGlite and on PostgreSQL.
 *
 * For each engine: a fresh database, migrated by the platform app; 1M tool-call records over the last 30 days
 * (1,000 users in 10 groups, 20 connectors of 10 tools, two environments, a tenth denied) written by bulk SQL
 * with the roll-ups the recorder keeps beside them (the same rows `record()` would have written, summed in
 * SQL). Then, in process (`inject`, no sockets), p50 / p99 of the summary and the time series (no dimension,
 * then each dimension) over the whole range, a ragged 7-day window and a ragged 3-hour one. Target: p99 ≤ 200 ms.
 *
 * PostgreSQL: TOOLYARD_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres (an
 * administrator connection: the benchmark creates its own database and drops it). Writes bench/results/tool-usage.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';

const RESULTS = new URL('./results/tool-usage.json', import.meta.url);
const ADMIN_URL = process.env.TOOLYARD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RECORDS = 1_000_000;
const DAYS = 30;
const REQUESTS = 30;
const TARGET_P99_MS = 200;
const ORIGIN_SECONDS = 345_600;

const log = (message: string) => process.stderr.write(`${message}\n`);

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The records in slices, then every roll-up from them, as the recorder would have summed them. */
async function seed(app: PlatformApp, now: Date): Promise<number> {
  const { db } = app.database;
  const began = performance.now();
  const span = DAYS * 86_400_000;
  const start = new Date(now.getTime() - span);
  const slices = 4;
  for (let slice = 0; slice < slices; slice++) {
    const first = (slice * RECORDS) / slices + 1;
    const last = ((slice + 1) * RECORDS) / slices;
    await sql`
      insert into tool_usage_records (id, chain_id, sequence, prev_hash, record_hash, usage, occurred_at, environment, connector_id, connector_name, tool_name, user_id, decision, outcome)
      select gen_random_uuid(), 'default', n, md5(n::text) || md5(n::text), md5((n + 1)::text) || md5((n + 1)::text),
        jsonb_build_object('billable', decision = 'allowed' and outcome = 'ok', 'billable_reason', case when decision = 'denied' then 'denied_by_policy' when outcome = 'ok' then 'delivered' else 'upstream_error' end,
          'call_id', gen_random_uuid(), 'category', decision, 'connector_id', cid, 'connector_name', cname, 'decision', decision, 'definition_version', '2026-11-01T00:00:00.000Z',
          'environment', env, 'gateway_id', 'default', 'groups', jsonb_build_array(jsonb_build_object('id', gid, 'name', 'group-' || (n % 10))), 'occurred_at', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'outcome', outcome, 'tool_name', tool, 'user_email', 'user' || (n % 1000) || '@example.com', 'user_id', uid),
        at, env, cid, cname, tool, uid, decision, outcome
      from (
        select n, ${start}::timestamptz + ((n::bigint * 2654435761) % ${span}::bigint) * interval '1 millisecond' as at,
          case when n % 5 = 0 then 'staging' else 'production' end as env,
          '00000000-0000-4000-8000-' || lpad(((n / 7) % 20)::text, 12, '0') as cid, 'connector-' || ((n / 7) % 20) as cname,
          'tool-' || ((n / 3) % 10) as tool, '00000000-0000-4000-9000-' || lpad((n % 1000)::text, 12, '0') as uid,
          '00000000-0000-4000-a000-' || lpad((n % 10)::text, 12, '0') as gid,
          case when n % 10 = 0 then 'denied' else 'allowed' end as decision,
          case when n % 10 = 0 or n % 37 = 0 then 'error' else 'ok' end as outcome
        from generate_series(${first}::int, ${last}::int) as n
      ) as generated`.execute(db);
    log(`  records ${first}–${last} at ${((performance.now() - began) / 1000).toFixed(1)} s`);
  }
  const bucket = (width: string) => sql.raw(`to_timestamp(floor((extract(epoch from occurred_at) - ${ORIGIN_SECONDS}) / ${width}) * ${width} + ${ORIGIN_SECONDS})`);
  await sql`
    insert into tool_usage_counts (chain_id, width, bucket_start, environment, connector_id, tool_name, decision, connector_name, count)
    select chain_id, w, ${bucket('w')}, environment, connector_id, tool_name, decision, max(connector_name), count(*)
    from tool_usage_records, (values (60), (900), (3600), (86400)) as widths (w) group by 1, 2, 3, 4, 5, 6, 7`.execute(db);
  await sql`
    insert into tool_usage_series (chain_id, dimension, width, bucket_start, environment, key, count)
    select chain_id, d, width, bucket_start, environment,
      case d when 'none' then '' when 'decision' then decision when 'connector' then connector_id else connector_id || '/' || tool_name end, sum(count)
    from tool_usage_counts, (values ('none'), ('decision'), ('connector'), ('tool')) as dimensions (d) group by 1, 2, 3, 4, 5, 6`.execute(db);
  await sql`
    insert into tool_usage_user_counts (chain_id, width, bucket_start, environment, user_id, count)
    select chain_id, w, ${bucket('w')}, environment, user_id, count(*)
    from tool_usage_records, (values (3600), (86400)) as widths (w) group by 1, 2, 3, 4, 5`.execute(db);
  await sql`
    insert into tool_usage_group_counts (chain_id, width, bucket_start, environment, connector_id, group_id, group_name, count)
    select chain_id, w, ${bucket('w')}, environment, connector_id, g->>'id', max(g->>'name'), count(*)
    from tool_usage_records, jsonb_array_elements(usage->'groups') as g, (values (60), (900), (3600), (86400)) as widths (w) group by 1, 2, 3, 4, 5, 6`.execute(db);
  await sql`insert into tool_usage_chains (chain_id, head_sequence, head_hash, head_at, signed_sequence) values ('default', ${RECORDS}, ${'0'.repeat(64)}, ${now}, ${RECORDS})`.execute(db);
  await sql`insert into tool_usage_folds (chain_id, folded_sequence) values ('default', ${RECORDS})`.execute(db);
  // as autovacuum would have by then: the visibility map lets the roll-ups be read from their indexes alone
  await sql`vacuum analyze`.execute(db);
  return Number(((performance.now() - began) / 1000).toFixed(1));
}

async function percentiles(app: PlatformApp, url: string): Promise<{ p50_ms: number; p99_ms: number; requests: number }> {
  const once = async () => {
    const response = await app.http.inject({ method: 'GET', url });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  };
  for (let warm = 0; warm < 3; warm++) await once();
  const times: number[] = [];
  for (let index = 0; index < REQUESTS; index++) {
    const began = performance.now();
    await once();
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  const at = (fraction: number) => Number((times[Math.min(times.length - 1, Math.ceil(fraction * times.length) - 1)] ?? 0).toFixed(2));
  return { p50_ms: at(0.5), p99_ms: at(0.99), requests: REQUESTS };
}

async function measure(app: PlatformApp, now: Date) {
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const week = `&start=${ago(7 * 86_400_000 + 1_234_567)}&end=${ago(3_210_987)}`;
  const hours = `&start=${ago(3 * 3_600_000 - 4_321)}&end=${ago(1_234)}`;
  const routes: Record<string, string> = {
    summary_all: '/v1/tool-usage/summary?gateway_id=default',
    summary_7d_ragged: `/v1/tool-usage/summary?gateway_id=default${week}`,
    summary_3h_ragged: `/v1/tool-usage/summary?gateway_id=default${hours}`,
    timeseries_all: '/v1/tool-usage/timeseries?gateway_id=default',
    timeseries_7d_ragged: `/v1/tool-usage/timeseries?gateway_id=default${week}`,
    timeseries_3h_ragged_tool: `/v1/tool-usage/timeseries?gateway_id=default${hours}&dimension=tool`,
  };
  for (const dimension of ['environment', 'tool', 'decision', 'connector']) routes[`timeseries_all_${dimension}`] = `/v1/tool-usage/timeseries?gateway_id=default&dimension=${dimension}`;
  const figures: Record<string, { p50_ms: number; p99_ms: number; requests: number; met: boolean }> = {};
  for (const [name, url] of Object.entries(routes)) {
    const measured = await percentiles(app, url);
    figures[name] = { ...measured, met: measured.p99_ms <= TARGET_P99_MS };
    log(`  ${name}: p50 ${measured.p50_ms} ms, p99 ${measured.p99_ms} ms`);
  }
  return figures;
}

async function onEngine(engine: 'pglite' | 'postgres') {
  const now = new Date();
  const name = `toolyard_bench_tool_usage_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const dataDir = engine === 'pglite' ? await mkdtemp(join(tmpdir(), 'toolyard-bench-tool-usage-')) : undefined;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  if (engine === 'postgres') await adminQuery(`create database ${name}`);
  try {
    const config = parsePlatformConfig({ auth: { mode: 'anonymous' }, database: engine === 'postgres' ? { url: url.toString(), maxConnections: 10 } : { dataDir } });
    const app = await buildPlatformApp({ config, logger: silentLogger });
    try {
      log(`${engine}: seeding ${RECORDS} records`);
      const seedSeconds = await seed(app, now);
      return { seed_seconds: seedSeconds, ...(await measure(app, now)) };
    } finally {
      await app.close();
    }
  } finally {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (engine === 'postgres') await adminQuery(`drop database if exists ${name} with (force)`);
  }
}

const result = {
  date: new Date().toISOString(),
  node: process.version,
  records: RECORDS,
  days: DAYS,
  target_p99_ms: TARGET_P99_MS,
  pglite: await onEngine('pglite'),
  postgres: await onEngine('postgres'),
};
console.log(JSON.stringify(result, null, 2));
await mkdir(new URL('.', RESULTS), { recursive: true });
await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
