/**
 * `npm run bench:registry [-- --engine pglite|postgres|both] [--duration N]`
 *
 * In one run on this machine, for each database engine:
 * 1. seeds 10,000 servers x 3 versions into the real registry app through a file source and its sync,
 *    and serves it on a loopback port (anonymous mode);
 * 2. serves the exact bytes of the first list page from a bare node:http server: the machine's ceiling;
 * 3. loads the ceiling and the list, get-latest and search routes from a separate process (autocannon,
 *    32 connections) and records requests/s, p50, p99, non-2xx and the ratio to the ceiling;
 * 4. times a full sync of the mcp-insights crawl into a fresh database and an unchanged re-sync;
 * then prints a table and writes bench/results/registry.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildRegistryApp, type RegistryApp } from '../src/registry/app.js';
import { parseRegistryConfig, type RegistryConfig } from '../src/registry/config.js';
import type { LoadOptions, LoadResult } from './load-worker.js';
import { generateSeedCatalog, serverName, type SeedCatalog } from './seed-catalog.js';

type Engine = 'pglite' | 'postgres';

const ROOT = new URL('..', import.meta.url).pathname;
const RESULTS = new URL('./results/registry.json', import.meta.url).pathname;
const LOAD_WORKER = new URL('./load-worker.ts', import.meta.url).pathname;
const MCP_INSIGHTS = new URL('../../shared/data/mcp-insights-servers.json', import.meta.url).pathname;
const ADMIN_URL = process.env.TOOLYARD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const SEED_SERVERS = 10_000;
const SEED_VERSIONS = 3;
const CONNECTIONS = 32;
const SYNC_RUNS = 3;
const RESYNCS_PER_RUN = 3;
const INSIGHTS = { servers: 1_108, versions: 2_794 };
const LIST_PATH = '/registry/default/v0.1/servers';
const SEARCH_TERM = 'weather-mcp';
const TARGETS = { listRatio: 0.5, p99Ms: 20, fullSyncMs: 3_000, resyncMs: 200 };

// ---------------------------------------------------------------------------------------------------
// databases

interface BenchDatabase {
  /** The `database` section of the registry configuration. */
  config: { url?: string; dataDir?: string };
  drop(): Promise<void>;
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function createBenchDatabase(engine: Engine, scratch: string): Promise<BenchDatabase> {
  if (engine === 'pglite') {
    const dataDir = await mkdtemp(join(scratch, 'pglite-'));
    return { config: { dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const name = `toolyard_bench_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { config: { url: url.toString() }, drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

/** Reaches the local PostgreSQL, starting the cluster once if it is down; the reason when it stays unreachable. */
async function ensurePostgres(): Promise<string | undefined> {
  try {
    await adminQuery('select 1');
    return undefined;
  } catch {
    // not running: try to start the local cluster below
  }
  try {
    const versions = await readdir('/etc/postgresql');
    for (const version of versions) {
      execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'ignore', timeout: 30_000 });
    }
  } catch (error) {
    return `PostgreSQL is not reachable at ${ADMIN_URL} and could not be started: ${(error as Error).message}`;
  }
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      await adminQuery('select 1');
      return undefined;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return `PostgreSQL is not reachable at ${ADMIN_URL}`;
}

// ---------------------------------------------------------------------------------------------------
// the registry app

function benchConfig(database: BenchDatabase, sourceName: string, catalogPath: string): RegistryConfig {
  return parseRegistryConfig({
    auth: { mode: 'anonymous' },
    database: database.config,
    sources: [{ name: sourceName, file: { path: catalogPath }, syncPolicy: { interval: '1h' } }],
    registries: [{ name: 'default', sources: [sourceName] }],
    logging: { level: 'silent' },
  });
}

function buildApp(config: RegistryConfig): Promise<RegistryApp> {
  return buildRegistryApp({ config, logger: silentLogger, backgroundSync: false });
}

/** Runs the due syncs (or the requested one) and checks each ended as expected; returns the elapsed ms. */
async function timedSync(app: RegistryApp, expected: 'changed' | 'unchanged'): Promise<number> {
  const started = performance.now();
  const results = await app.scheduler.runDue();
  const elapsed = performance.now() - started;
  if (results.size === 0) throw new Error('no source was due for sync');
  for (const [name, result] of results) {
    if (result !== expected) {
      const status = await app.database.db.selectFrom('source_sync').select(['phase', 'message']).where('source_name', '=', name).executeTakeFirst();
      throw new Error(`sync of ${name}: expected ${expected}, got ${result} (${status?.phase ?? '?'}: ${status?.message ?? ''})`);
    }
  }
  return elapsed;
}

function served(app: RegistryApp): { versions: number; latest: number } {
  const view = app.readModel.registry('default')?.types.server;
  return { versions: view?.all.length ?? 0, latest: view?.latest.length ?? 0 };
}

// ---------------------------------------------------------------------------------------------------
// load

interface TargetResult extends LoadResult {
  /** The paths requested, in turn by every connection. */
  paths: string[];
  /** requests/s relative to the ceiling. */
  ratio: number;
  /** The ceiling only: requests/s of its run before and of its run after the registry routes (their mean is the ceiling). */
  runsPerSecond?: number[];
}

function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD_WORKER, JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') {
        reject(new Error(`load generator exited with ${code ?? 'a signal'}: ${output}`));
        return;
      }
      resolve(JSON.parse(line) as LoadResult);
    });
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

// ---------------------------------------------------------------------------------------------------
// one engine

interface EngineResult {
  seed: { servers: number; versions: number; records: number; catalogBytes: number; syncMs: number; processRssMiB: number };
  http: {
    connections: number;
    durationSeconds: number;
    firstPageBytes: number;
    ceiling: TargetResult;
    list: TargetResult;
    getLatest: TargetResult;
    search: TargetResult;
  };
  sync: { records: number; fullMs: number[]; fullMedianMs: number; resyncMs: number[]; resyncMedianMs: number };
  targets: Record<string, { target: string; value: number; met: boolean }>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

async function measureHttp(engine: Engine, scratch: string, seed: SeedCatalog, seedPath: string, duration: number): Promise<Pick<EngineResult, 'seed' | 'http'>> {
  const database = await createBenchDatabase(engine, scratch);
  let app: RegistryApp | undefined;
  const ceilingServer = createServer();
  try {
    app = await buildApp(benchConfig(database, 'bench', seedPath));
    log(`[${engine}] seeding ${seed.records} records through the file source`);
    const seedMs = await timedSync(app, 'changed');
    const counts = served(app);
    if (counts.versions !== seed.records || counts.latest !== SEED_SERVERS) {
      throw new Error(`seeded catalog serves ${counts.versions} versions of ${counts.latest} servers; expected ${seed.records} of ${SEED_SERVERS}`);
    }
    app.start();
    await app.http.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(app.http.server.address() as AddressInfo).port}`;

    const first = await fetch(`${origin}${LIST_PATH}`);
    const firstPage = Buffer.from(await first.arrayBuffer());
    const contentType = first.headers.get('content-type') ?? 'application/json';
    const page = JSON.parse(firstPage.toString('utf8')) as { servers: unknown[]; metadata: { count: number; nextCursor?: string } };
    if (first.status !== 200 || page.metadata.count !== 30 || page.metadata.nextCursor === undefined) throw new Error(`unexpected first page: ${first.status}`);
    ceilingServer.on('request', (_request, response) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': firstPage.length });
      response.end(firstPage);
    });
    const ceilingOrigin = await listen(ceilingServer);

    const latestNames = Array.from({ length: 16 }, (_, i) => serverName(Math.floor((i * SEED_SERVERS) / 16) + 3));
    const searchPath = `${LIST_PATH}?search=${SEARCH_TERM}`;
    const searchCheck = (await (await fetch(`${origin}${searchPath}`)).json()) as { metadata: { count: number } };
    if (searchCheck.metadata.count !== 30) throw new Error(`search "${SEARCH_TERM}" returned ${searchCheck.metadata.count} records; expected a full page`);
    const target = (key: string, origin: string, paths: string[]) => ({ key, origin, paths });
    // the ceiling is measured before and after the registry routes, so drift on a noisy machine shows
    const plan = [
      target('ceiling', ceilingOrigin, [LIST_PATH]),
      target('list', origin, [LIST_PATH]),
      target('getLatest', origin, latestNames.map((name) => `/registry/default/v0.1/servers/${encodeURIComponent(name)}/versions/latest`)),
      target('search', origin, [searchPath]),
      target('ceilingAfter', ceilingOrigin, [LIST_PATH]),
    ];
    const measured = new Map<string, LoadResult & { paths: string[] }>();
    for (const { key, origin: base, paths } of plan) {
      log(`[${engine}] loading ${key}: ${CONNECTIONS} connections, ${duration}s`);
      const result = await runLoad({ origin: base, paths, connections: CONNECTIONS, durationSeconds: duration, warmupSeconds: Math.min(2, duration) });
      measured.set(key, { paths, ...result, requestsPerSecond: Math.round(result.requestsPerSecond), bytesPerSecond: Math.round(result.bytesPerSecond) });
    }
    const get = (key: string) => measured.get(key) as LoadResult & { paths: string[] };
    const [before, after] = [get('ceiling'), get('ceilingAfter')];
    const ceilingRate = (before.requestsPerSecond + after.requestsPerSecond) / 2;
    const ceiling: TargetResult = {
      ...before,
      requestsPerSecond: ceilingRate,
      p50Ms: Math.max(before.p50Ms, after.p50Ms),
      p90Ms: Math.max(before.p90Ms, after.p90Ms),
      p99Ms: Math.max(before.p99Ms, after.p99Ms),
      maxMs: Math.max(before.maxMs, after.maxMs),
      requests: before.requests + after.requests,
      non2xx: before.non2xx + after.non2xx,
      errors: before.errors + after.errors,
      timeouts: before.timeouts + after.timeouts,
      bytesPerSecond: Math.round((before.bytesPerSecond + after.bytesPerSecond) / 2),
      ratio: 1,
      runsPerSecond: [Math.round(before.requestsPerSecond), Math.round(after.requestsPerSecond)],
    };
    const relative = (key: string): TargetResult => ({ ...get(key), ratio: Math.round((get(key).requestsPerSecond / ceilingRate) * 1000) / 1000 });
    return {
      seed: {
        servers: SEED_SERVERS,
        versions: SEED_VERSIONS,
        records: seed.records,
        catalogBytes: Buffer.byteLength(seed.text),
        syncMs: Math.round(seedMs),
        processRssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
      },
      http: {
        connections: CONNECTIONS,
        durationSeconds: duration,
        firstPageBytes: firstPage.length,
        ceiling,
        list: relative('list'),
        getLatest: relative('getLatest'),
        search: relative('search'),
      },
    };
  } finally {
    if (ceilingServer.listening) await closeServer(ceilingServer);
    if (app) {
      app.http.server.closeAllConnections();
      await app.close();
    }
    await database.drop();
  }
}

async function measureSync(engine: Engine, scratch: string): Promise<EngineResult['sync']> {
  const fullMs: number[] = [];
  const resyncMs: number[] = [];
  for (let run = 0; run < SYNC_RUNS; run++) {
    const database = await createBenchDatabase(engine, scratch);
    let app: RegistryApp | undefined;
    try {
      app = await buildApp(benchConfig(database, 'insights', MCP_INSIGHTS));
      fullMs.push(await timedSync(app, 'changed'));
      const counts = served(app);
      if (counts.versions !== INSIGHTS.versions || counts.latest !== INSIGHTS.servers) {
        throw new Error(`mcp-insights serves ${counts.versions} versions of ${counts.latest} servers; expected ${INSIGHTS.versions} of ${INSIGHTS.servers}`);
      }
      for (let again = 0; again < RESYNCS_PER_RUN; again++) {
        await app.scheduler.request('insights');
        resyncMs.push(await timedSync(app, 'unchanged'));
      }
    } finally {
      await app?.close();
      await database.drop();
    }
    log(`[${engine}] mcp-insights sync run ${run + 1}/${SYNC_RUNS}: full ${fullMs.at(-1)?.toFixed(0) ?? '?'} ms`);
  }
  const round = (values: number[]) => values.map((value) => Math.round(value * 10) / 10);
  return {
    records: INSIGHTS.versions,
    fullMs: round(fullMs),
    fullMedianMs: Math.round(median(fullMs) * 10) / 10,
    resyncMs: round(resyncMs),
    resyncMedianMs: Math.round(median(resyncMs) * 10) / 10,
  };
}

function assess(http: EngineResult['http'], sync: EngineResult['sync']): EngineResult['targets'] {
  const worstP99 = Math.max(http.list.p99Ms, http.getLatest.p99Ms, http.search.p99Ms);
  return {
    listRatio: { target: `list >= ${TARGETS.listRatio * 100}% of the ceiling`, value: http.list.ratio, met: http.list.ratio >= TARGETS.listRatio },
    p99: { target: `p99 <= ${TARGETS.p99Ms} ms at ${CONNECTIONS} connections (list, get-latest, search)`, value: worstP99, met: worstP99 <= TARGETS.p99Ms },
    errors: {
      target: 'no non-2xx responses or errors',
      value: [http.list, http.getLatest, http.search].reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
      met: [http.list, http.getLatest, http.search].every((r) => r.non2xx + r.errors + r.timeouts === 0),
    },
    fullSync: { target: `mcp-insights full sync <= ${TARGETS.fullSyncMs} ms`, value: sync.fullMedianMs, met: sync.fullMedianMs <= TARGETS.fullSyncMs },
    resync: { target: `unchanged re-sync <= ${TARGETS.resyncMs} ms`, value: sync.resyncMedianMs, met: sync.resyncMedianMs <= TARGETS.resyncMs },
  };
}

// ---------------------------------------------------------------------------------------------------
// report

function printEngine(engine: Engine, result: EngineResult): void {
  const pad = (value: string, width: number) => value.padStart(width);
  const { http, sync } = result;
  const lines = [
    '',
    `${engine}: ${result.seed.records} records seeded in ${result.seed.syncMs} ms; first page ${http.firstPageBytes} bytes; ${http.connections} connections, ${http.durationSeconds} s per target`,
    `  ceiling = mean of a run before (${http.ceiling.runsPerSecond?.[0] ?? '?'} req/s) and after (${http.ceiling.runsPerSecond?.[1] ?? '?'} req/s) the registry routes`,
    `  ${'target'.padEnd(12)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('max ms', 9)}${pad('non-2xx', 9)}${pad('ratio', 8)}`,
  ];
  for (const [label, row] of [
    ['ceiling', http.ceiling],
    ['list', http.list],
    ['get-latest', http.getLatest],
    ['search', http.search],
  ] as const) {
    lines.push(
      `  ${label.padEnd(12)}${pad(row.requestsPerSecond.toFixed(0), 10)}${pad(String(row.p50Ms), 9)}${pad(String(row.p99Ms), 9)}${pad(String(row.maxMs), 9)}${pad(String(row.non2xx + row.errors), 9)}${pad(`${(row.ratio * 100).toFixed(0)}%`, 8)}`,
    );
  }
  lines.push(
    `  mcp-insights sync (${sync.records} records): full ${sync.fullMedianMs} ms (median of ${sync.fullMs.join(', ')}), unchanged re-sync ${sync.resyncMedianMs} ms (median of ${sync.resyncMs.join(', ')})`,
  );
  for (const target of Object.values(result.targets)) lines.push(`  ${target.met ? 'MET   ' : 'MISSED'} ${target.target}: ${target.value}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { engine: { type: 'string', default: 'both' }, duration: { type: 'string', default: '10' } },
    strict: true,
  });
  const engineArg = values.engine;
  if (!['pglite', 'postgres', 'both'].includes(engineArg)) throw new Error(`--engine: "${engineArg}" must be pglite, postgres or both`);
  const duration = Number(values.duration);
  if (!Number.isInteger(duration) || duration < 1) throw new Error(`--duration: "${values.duration}" must be a whole number of seconds`);
  const engines: Engine[] = engineArg === 'both' ? ['pglite', 'postgres'] : [engineArg as Engine];

  const scratch = await mkdtemp(join(tmpdir(), 'toolyard-bench-'));
  const report: { date: string; machine: { cpus: number; model: string; node: string }; engines: Partial<Record<Engine, EngineResult | { skipped: string }>> } = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
    engines: {},
  };
  let failed = false;
  try {
    log(`generating ${SEED_SERVERS} servers x ${SEED_VERSIONS} versions`);
    const seed = generateSeedCatalog(SEED_SERVERS, SEED_VERSIONS);
    const seedPath = join(scratch, 'seed-catalog.json');
    await writeFile(seedPath, seed.text);
    for (const engine of engines) {
      if (engine === 'postgres') {
        const unreachable = await ensurePostgres();
        if (unreachable !== undefined) {
          log(`[postgres] skipped: ${unreachable}`);
          report.engines.postgres = { skipped: unreachable };
          if (engineArg === 'postgres') failed = true;
          continue;
        }
      }
      const measured = await measureHttp(engine, scratch, seed, seedPath, duration);
      const sync = await measureSync(engine, scratch);
      const result: EngineResult = { ...measured, sync, targets: assess(measured.http, sync) };
      report.engines[engine] = result;
      printEngine(engine, result);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${report.machine.cpus} x ${report.machine.model}, node ${report.machine.node}; results written to bench/results/registry.json\n`);
  if (failed) process.exitCode = 1;
}

await main();
