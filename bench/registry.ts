/**
 * `npm run bench:registry [-- --engine pglite|postgres|both] [--auth off|on|both] [--duration N] [--replicas N]`
 *
 * In one run on this machine, for each database engine:
 * 1. anonymous (--auth off or both): seeds 10,000 servers x 3 versions into the real registry app
 *    through a file source and its sync, and serves it on a loopback port;
 * 2. serves the exact bytes of the first list page from a bare node:http server: the machine's ceiling;
 * 3. loads the ceiling and the list, get-latest and search routes (four terms in turn, latest versions)
 *    from a separate process (autocannon, 32 connections) and records requests/s, p50, p99, non-2xx and the ratio to the ceiling;
 * 4. authorization on (--auth on or both): the same with `auth.mode: oauth`, one provider (a local
 *    OpenID provider, bench/oidc.ts) and roles; the 10,000 servers are split over two sources with
 *    different claims behind a registry with claims, the personas see one source, and every request
 *    carries one of four personas' bearer tokens in turn (the ceiling gets the same requests and serves
 *    the personas' first page); checks 401, 403 and 404 and the personas' visible set first;
 * 5. times a full sync of the mcp-insights crawl into a fresh database and an unchanged re-sync;
 * then prints a table and writes bench/results/registry.json (`engines.<engine>.auth` for step 4).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildRegistryApp, type RegistryApp } from '../src/registry/app.js';
import { parseRegistryConfig, type RegistryConfig } from '../src/registry/config.js';
import { closeServer, listen } from './ceiling-server.js';
import type { LoadOptions, LoadResult } from './load-worker.js';
import { startOidcProvider, type BenchOidcProvider } from './oidc.js';
import { generateSeedCatalog, serverName, type SeedCatalog } from './seed-catalog.js';
import { measureReplicas } from './replicas.js';

type Engine = 'pglite' | 'postgres';

const ROOT = new URL('..', import.meta.url).pathname;
const RESULTS = new URL('./results/registry.json', import.meta.url).pathname;
const REPLICA_RESULTS = new URL('./results/registry-replicas.json', import.meta.url).pathname;
const LOAD_WORKER = new URL('./load-worker.ts', import.meta.url).pathname;
const MCP_INSIGHTS = new URL('../test/fixtures/mcp-insights-servers.json', import.meta.url).pathname;
const ADMIN_URL = process.env.TOOLYARD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const SEED_SERVERS = 10_000;
const SEED_VERSIONS = 3;
const CONNECTIONS = 32;
const SYNC_RUNS = 3;
const RESYNCS_PER_RUN = 3;
const INSIGHTS = { servers: 1_108, versions: 2_794 };
const LIST_PATH = '/registry/default/v0.1/servers';
/**
 * Searched in turn, each as `?search=<term>&version=latest&limit=30`: a frequent word, a mixed-case
 * word and number, a rare number and a term nothing matches (which a scan pays for with every name).
 */
const SEARCH_TERMS = ['weather-mcp', 'GitHub-MCP-07', 'mcp-0421', 'no-such-server'];
const SEARCH_LIMIT = 30;
const TARGETS = { listRatio: 0.5, searchRatio: 0.5, searchP99Ms: 10, p99Ms: 20, fullSyncMs: 3_000, resyncMs: 200 };
/** Authorization on: a bearer token per request, entries with claims (issue 3). */
const AUTH_TARGETS = { listRatio: 0.4, searchRatio: 0.4, searchP99Ms: 10, p99Ms: 20 };

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

type Claims = Record<string, string | string[]>;

/** What one measured registry looks like: its configuration, what it serves and how it is called. */
interface Scenario {
  label: 'anonymous' | 'auth on';
  /** The registry configuration, without its database section. */
  config: Record<string, unknown>;
  /** Versions and servers the registry serves to a caller who sees everything. */
  expected: { versions: number; latest: number };
  /** Header sets sent in turn, one per request (a bearer token per persona); `[{}]` when anonymous. */
  headers: Record<string, string>[];
  /** Servers whose latest version the get-latest target asks for. */
  latestNames: string[];
  /** Every server name the scenario's callers see, to check what the searches return. */
  visibleNames: string[];
  /** Correctness checks against the served registry before it is loaded. */
  check?(origin: string): Promise<void>;
}

function registryConfig(database: BenchDatabase, config: Record<string, unknown>): RegistryConfig {
  return parseRegistryConfig({ ...config, database: database.config, logging: { level: 'silent' } });
}

function anonymousConfig(sourceName: string, catalogPath: string): Record<string, unknown> {
  return {
    auth: { mode: 'anonymous' },
    sources: [{ name: sourceName, file: { path: catalogPath }, syncPolicy: { interval: '1h' } }],
    registries: [{ name: 'default', sources: [sourceName] }],
  };
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
// authorization on: a local OpenID provider, personas, and a catalog split over two sources

const AUDIENCE = 'api://toolyard-bench';
/** Even-numbered servers: the source the bench personas see. */
const PLATFORM_CLAIMS: Claims = { org: 'acme', team: ['platform', 'data'] };
/** Odd-numbered servers: a source the bench personas must not see. */
const SECURITY_CLAIMS: Claims = { org: 'acme', team: 'security' };
const REGISTRY_CLAIMS: Claims = { org: 'acme' };
const ROLES = {
  superAdmin: [{ role: 'super-admin' }],
  manageSources: [{ org: 'acme', role: 'admin' }],
  manageRegistries: [{ org: 'acme', role: 'admin' }],
  manageEntries: [{ role: 'writer' }, { team: ['platform', 'data'] }],
};
/**
 * The tokens the load sends in turn. All four see exactly the platform source, so every one gets the
 * same first page; alice and bob share one cached view, carol and dave hold other values of the keys
 * the entries use and get views of their own.
 */
const PERSONAS: { subject: string; claims: Record<string, unknown> }[] = [
  { subject: 'alice', claims: { org: 'acme', team: ['platform', 'data'], role: 'writer', name: 'Alice', email: 'alice@acme.example' } },
  { subject: 'bob', claims: { org: 'acme', team: ['platform', 'data'], name: 'Bob', email: 'bob@acme.example' } },
  { subject: 'carol', claims: { org: 'acme', team: 'platform', name: 'Carol', email: 'carol@acme.example' } },
  { subject: 'dave', claims: { org: ['acme', 'partner'], team: ['data', 'ml'], name: 'Dave', email: 'dave@acme.example' } },
];
/** Checks only: sees the security source and not the platform one. */
const EVE = { subject: 'eve', claims: { org: 'acme', team: 'security' } };
/** Checks only: holds a team of the platform source but not the registry's org, so the gate refuses. */
const MALLORY = { subject: 'mallory', claims: { org: 'globex', team: 'platform' } };

interface AuthSetup {
  scenario: Scenario;
  sources: { name: string; claims: Claims; servers: number; records: number; catalogBytes: number }[];
  /** Versions and servers a bench persona sees. */
  visible: { versions: number; latest: number };
}

function serverIndex(name: string): number {
  return Number(/-(\d+)$/.exec(name)?.[1] ?? Number.NaN);
}

async function expectStatus(origin: string, path: string, token: string | undefined, status: number, what: string): Promise<Response> {
  const response = await fetch(`${origin}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  if (response.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${response.status} ${await response.text()}`);
  return response;
}

/** Pages through the latest versions a token sees; the server indexes on every page. */
async function latestIndexes(origin: string, token: string): Promise<number[]> {
  const indexes: number[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ version: 'latest', limit: '100', ...(cursor !== undefined && { cursor }) });
    const response = await expectStatus(origin, `${LIST_PATH}?${query.toString()}`, token, 200, 'paging the latest versions');
    const page = (await response.json()) as { servers: { server: { name: string } }[]; metadata: { nextCursor?: string } };
    indexes.push(...page.servers.map((record) => serverIndex(record.server.name)));
    cursor = page.metadata.nextCursor;
  } while (cursor !== undefined);
  return indexes;
}

async function authSetup(scratch: string, provider: BenchOidcProvider): Promise<AuthSetup> {
  const platform = generateSeedCatalog(SEED_SERVERS, SEED_VERSIONS, (index) => index % 2 === 0);
  const security = generateSeedCatalog(SEED_SERVERS, SEED_VERSIONS, (index) => index % 2 === 1);
  const platformPath = join(scratch, 'seed-platform.json');
  const securityPath = join(scratch, 'seed-security.json');
  await writeFile(platformPath, platform.text);
  await writeFile(securityPath, security.text);
  const tokens = await Promise.all(PERSONAS.map(({ subject, claims }) => provider.mint(subject, claims)));
  const [eve, mallory] = await Promise.all([provider.mint(EVE.subject, EVE.claims), provider.mint(MALLORY.subject, MALLORY.claims)]);
  const alice = tokens[0] as string;
  const oddName = security.names[Math.floor(security.names.length / 2)] as string;
  const evenName = platform.names[Math.floor(platform.names.length / 2)] as string;
  const latestPath = (name: string) => `/registry/default/v0.1/servers/${encodeURIComponent(name)}/versions/latest`;
  const visible = { versions: platform.records, latest: platform.names.length };
  const sources = [
    // the security source comes first: for the personas its entries are invisible, so the registry's
    // precedence is decided among the visible entries of both sources on every view
    { name: 'security', claims: SECURITY_CLAIMS, servers: security.names.length, records: security.records, catalogBytes: Buffer.byteLength(security.text), path: securityPath },
    { name: 'platform', claims: PLATFORM_CLAIMS, servers: platform.names.length, records: platform.records, catalogBytes: Buffer.byteLength(platform.text), path: platformPath },
  ];
  return {
    visible,
    sources: sources.map(({ path: _path, ...source }) => source),
    scenario: {
      label: 'auth on',
      config: {
        auth: {
          mode: 'oauth',
          oauth: { resourceUrl: 'https://registry.bench.invalid', providers: [{ name: 'bench-oidc', issuerUrl: provider.issuer, audience: AUDIENCE }] },
          authz: { roles: ROLES },
        },
        sources: sources.map(({ name, path, claims }) => ({ name, file: { path }, claims, syncPolicy: { interval: '1h' } })),
        registries: [{ name: 'default', sources: sources.map(({ name }) => name), claims: REGISTRY_CLAIMS }],
      },
      expected: { versions: platform.records + security.records, latest: platform.names.length + security.names.length },
      headers: tokens.map((token) => ({ authorization: `Bearer ${token}` })),
      // visible to the personas: platform servers spread over the catalog
      latestNames: Array.from({ length: 16 }, (_, i) => platform.names[Math.floor((i * platform.names.length) / 16) + 1] as string),
      visibleNames: platform.names,
      async check(origin) {
        const challenge = (await expectStatus(origin, LIST_PATH, undefined, 401, 'a list without a token')).headers.get('www-authenticate') ?? '';
        if (!challenge.startsWith('Bearer ')) throw new Error(`a list without a token: no bearer challenge (${challenge})`);
        await expectStatus(origin, LIST_PATH, `${alice.slice(0, -4)}AAAA`, 401, 'a list with a forged signature');
        await expectStatus(origin, LIST_PATH, mallory, 403, 'the registry gate for another org');
        await expectStatus(origin, latestPath(oddName), alice, 404, 'a security server for a platform persona');
        await expectStatus(origin, latestPath(evenName), eve, 404, 'a platform server for a security persona');
        await expectStatus(origin, latestPath(oddName), eve, 200, 'a security server for a security persona');
        for (const [who, token, parity, count] of [
          ['alice', alice, 0, visible.latest],
          ['dave', tokens[3] as string, 0, visible.latest],
          ['eve', eve, 1, security.names.length],
        ] as const) {
          const indexes = await latestIndexes(origin, token);
          if (indexes.length !== count || indexes.some((index) => index % 2 !== parity)) {
            throw new Error(`${who} sees ${indexes.length} servers (${indexes.filter((index) => index % 2 !== parity).length} of the other source); expected ${count} of its own`);
          }
        }
      },
    },
  };
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


// ---------------------------------------------------------------------------------------------------
// one engine

interface HttpResult {
  connections: number;
  durationSeconds: number;
  /** Distinct Authorization headers sent in turn (0: anonymous). */
  tokens: number;
  firstPageBytes: number;
  ceiling: TargetResult;
  list: TargetResult;
  getLatest: TargetResult;
  search: TargetResult;
}

type Targets = Record<string, { target: string; value: number; met: boolean }>;

interface AuthResult {
  provider: { issuer: string; audience: string; discoveryFetches: number; jwksFetches: number };
  registryClaims: Claims;
  sources: AuthSetup['sources'];
  personas: { subject: string; claims: Record<string, unknown> }[];
  seed: { servers: number; versions: number; records: number; visibleRecords: number; visibleServers: number; syncMs: number; processRssMiB: number };
  http: HttpResult;
  targets: Targets;
}

interface EngineResult {
  /** Anonymous mode (absent with --auth on). */
  seed?: { servers: number; versions: number; records: number; catalogBytes: number; syncMs: number; processRssMiB: number };
  http?: HttpResult;
  /** Authorization on (absent with --auth off). */
  auth?: AuthResult;
  sync: { records: number; fullMs: number[]; fullMedianMs: number; resyncMs: number[]; resyncMedianMs: number };
  targets: Targets;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * Seeds a fresh database with the scenario's sources, serves it, checks it, and loads the ceiling (the
 * bytes of the first list page the scenario's caller gets, from a bare node:http server) and the list,
 * get-latest and search routes, every request carrying the scenario's headers in turn.
 */
async function measureHttp(
  engine: Engine,
  scratch: string,
  scenario: Scenario,
  duration: number,
): Promise<{ syncMs: number; processRssMiB: number; http: HttpResult }> {
  const tag = `[${engine}, ${scenario.label}]`;
  const database = await createBenchDatabase(engine, scratch);
  let app: RegistryApp | undefined;
  const ceilingServer = createServer();
  try {
    app = await buildApp(registryConfig(database, scenario.config));
    log(`${tag} seeding ${scenario.expected.versions} records through the file source${scenario.expected.versions === SEED_SERVERS * SEED_VERSIONS ? '' : 's'}`);
    const syncMs = await timedSync(app, 'changed');
    const counts = served(app);
    if (counts.versions !== scenario.expected.versions || counts.latest !== scenario.expected.latest) {
      throw new Error(`seeded catalog serves ${counts.versions} versions of ${counts.latest} servers; expected ${scenario.expected.versions} of ${scenario.expected.latest}`);
    }
    app.start();
    await app.http.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(app.http.server.address() as AddressInfo).port}`;
    await scenario.check?.(origin);

    const firstHeaders = scenario.headers[0] ?? {};
    const first = await fetch(`${origin}${LIST_PATH}`, { headers: firstHeaders });
    const firstPage = Buffer.from(await first.arrayBuffer());
    const contentType = first.headers.get('content-type') ?? 'application/json';
    const page = JSON.parse(firstPage.toString('utf8')) as { servers: unknown[]; metadata: { count: number; nextCursor?: string } };
    if (first.status !== 200 || page.metadata.count !== 30 || page.metadata.nextCursor === undefined) throw new Error(`unexpected first page: ${first.status}`);
    // every caller of the scenario must get these very bytes, or the ceiling would not be theirs
    for (const headers of scenario.headers.slice(1)) {
      const other = Buffer.from(await (await fetch(`${origin}${LIST_PATH}`, { headers })).arrayBuffer());
      if (!other.equals(firstPage)) throw new Error(`${tag} the callers of the scenario get different first pages`);
    }
    ceilingServer.on('request', (_request, response) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': firstPage.length });
      response.end(firstPage);
    });
    const ceilingOrigin = await listen(ceilingServer);

    const searchPaths = SEARCH_TERMS.map((term) => `${LIST_PATH}?${new URLSearchParams({ search: term, version: 'latest', limit: String(SEARCH_LIMIT) }).toString()}`);
    for (const [index, term] of SEARCH_TERMS.entries()) {
      const found = (await (await fetch(`${origin}${searchPaths[index] ?? ''}`, { headers: firstHeaders })).json()) as { metadata: { count: number } };
      const expected = Math.min(SEARCH_LIMIT, scenario.visibleNames.filter((name) => name.toLowerCase().includes(term.toLowerCase())).length);
      if (found.metadata.count !== expected) throw new Error(`search "${term}" returned ${found.metadata.count} records; expected ${expected}`);
    }
    const target = (key: string, base: string, paths: string[]) => ({ key, origin: base, paths });
    // the ceiling is measured before and after the registry routes, so drift on a noisy machine shows
    const plan = [
      target('ceiling', ceilingOrigin, [LIST_PATH]),
      target('list', origin, [LIST_PATH]),
      target('getLatest', origin, scenario.latestNames.map((name) => `/registry/default/v0.1/servers/${encodeURIComponent(name)}/versions/latest`)),
      target('search', origin, searchPaths),
      target('ceilingAfter', ceilingOrigin, [LIST_PATH]),
    ];
    const measured = new Map<string, LoadResult & { paths: string[] }>();
    for (const { key, origin: base, paths } of plan) {
      log(`${tag} loading ${key}: ${CONNECTIONS} connections, ${duration}s`);
      // every path with every header set (the ceiling gets the same request bytes as the registry)
      const requests = paths.flatMap((path) => scenario.headers.map((headers) => ({ path, ...(Object.keys(headers).length > 0 && { headers }) })));
      const result = await runLoad({ origin: base, requests, connections: CONNECTIONS, durationSeconds: duration, warmupSeconds: Math.min(2, duration) });
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
      syncMs: Math.round(syncMs),
      processRssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
      http: {
        connections: CONNECTIONS,
        durationSeconds: duration,
        tokens: scenario.headers.filter((headers) => headers.authorization !== undefined).length,
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

async function measureAnonymous(engine: Engine, scratch: string, seed: SeedCatalog, seedPath: string, duration: number): Promise<Pick<EngineResult, 'seed' | 'http'>> {
  const scenario: Scenario = {
    label: 'anonymous',
    config: anonymousConfig('bench', seedPath),
    expected: { versions: seed.records, latest: SEED_SERVERS },
    headers: [{}],
    latestNames: Array.from({ length: 16 }, (_, i) => serverName(Math.floor((i * SEED_SERVERS) / 16) + 3)),
    visibleNames: seed.names,
  };
  const { syncMs, processRssMiB, http } = await measureHttp(engine, scratch, scenario, duration);
  return {
    seed: { servers: SEED_SERVERS, versions: SEED_VERSIONS, records: seed.records, catalogBytes: Buffer.byteLength(seed.text), syncMs, processRssMiB },
    http,
  };
}

async function measureAuth(engine: Engine, scratch: string, duration: number): Promise<AuthResult> {
  const provider = await startOidcProvider(AUDIENCE);
  try {
    const setup = await authSetup(scratch, provider);
    const { syncMs, processRssMiB, http } = await measureHttp(engine, scratch, setup.scenario, duration);
    return {
      provider: { issuer: provider.issuer, audience: AUDIENCE, discoveryFetches: provider.served.discovery, jwksFetches: provider.served.jwks },
      registryClaims: REGISTRY_CLAIMS,
      sources: setup.sources,
      personas: PERSONAS,
      seed: {
        servers: SEED_SERVERS,
        versions: SEED_VERSIONS,
        records: setup.scenario.expected.versions,
        visibleRecords: setup.visible.versions,
        visibleServers: setup.visible.latest,
        syncMs,
        processRssMiB,
      },
      http,
      targets: assessAuth(http),
    };
  } finally {
    await provider.close();
  }
}

async function measureSync(engine: Engine, scratch: string): Promise<EngineResult['sync']> {
  const fullMs: number[] = [];
  const resyncMs: number[] = [];
  for (let run = 0; run < SYNC_RUNS; run++) {
    const database = await createBenchDatabase(engine, scratch);
    let app: RegistryApp | undefined;
    try {
      app = await buildApp(registryConfig(database, anonymousConfig('insights', MCP_INSIGHTS)));
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

function errorsTarget(http: HttpResult): Targets[string] {
  const routes = [http.list, http.getLatest, http.search];
  return {
    target: 'no non-2xx responses or errors',
    value: routes.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
    met: routes.every((r) => r.non2xx + r.errors + r.timeouts === 0),
  };
}

function httpTargets(http: HttpResult, targets: { listRatio: number; searchRatio: number; searchP99Ms: number; p99Ms: number }): Targets {
  const worstP99 = Math.max(http.list.p99Ms, http.getLatest.p99Ms, http.search.p99Ms);
  return {
    listRatio: { target: `list >= ${targets.listRatio * 100}% of the ceiling`, value: http.list.ratio, met: http.list.ratio >= targets.listRatio },
    searchRatio: { target: `search >= ${targets.searchRatio * 100}% of the ceiling`, value: http.search.ratio, met: http.search.ratio >= targets.searchRatio },
    searchP99: { target: `search p99 <= ${targets.searchP99Ms} ms at ${CONNECTIONS} connections`, value: http.search.p99Ms, met: http.search.p99Ms <= targets.searchP99Ms },
    p99: { target: `p99 <= ${targets.p99Ms} ms at ${CONNECTIONS} connections (list, get-latest, search)`, value: worstP99, met: worstP99 <= targets.p99Ms },
    errors: errorsTarget(http),
  };
}

function assess(http: HttpResult | undefined, sync: EngineResult['sync']): Targets {
  return {
    ...(http && httpTargets(http, TARGETS)),
    fullSync: { target: `mcp-insights full sync <= ${TARGETS.fullSyncMs} ms`, value: sync.fullMedianMs, met: sync.fullMedianMs <= TARGETS.fullSyncMs },
    resync: { target: `unchanged re-sync <= ${TARGETS.resyncMs} ms`, value: sync.resyncMedianMs, met: sync.resyncMedianMs <= TARGETS.resyncMs },
  };
}

function assessAuth(http: HttpResult): Targets {
  return httpTargets(http, AUTH_TARGETS);
}

// ---------------------------------------------------------------------------------------------------
// report

function httpTable(http: HttpResult): string[] {
  const pad = (value: string, width: number) => value.padStart(width);
  const lines = [
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
  return lines;
}

const HTTP_TARGETS = new Set(['listRatio', 'searchRatio', 'searchP99', 'p99', 'errors']);

/** One line per target; the HTTP ones name the mode they were measured in. */
function targetLines(targets: Targets, mode: string): string[] {
  return Object.entries(targets).map(([key, target]) => `  ${target.met ? 'MET   ' : 'MISSED'} ${HTTP_TARGETS.has(key) ? `${mode}: ` : ''}${target.target}: ${target.value}`);
}

function printEngine(engine: Engine, result: EngineResult): void {
  const { seed, http, auth, sync } = result;
  const lines = [''];
  if (seed && http) {
    lines.push(
      `${engine}, anonymous: ${seed.records} records seeded in ${seed.syncMs} ms; first page ${http.firstPageBytes} bytes; ${http.connections} connections, ${http.durationSeconds} s per target`,
      ...httpTable(http),
    );
  }
  if (auth) {
    lines.push(
      `${engine}, auth on: ${auth.seed.records} records in ${auth.sources.length} sources seeded in ${auth.seed.syncMs} ms, ${auth.seed.visibleRecords} visible to the personas; ` +
        `first page ${auth.http.firstPageBytes} bytes; ${auth.http.tokens} bearer tokens in turn; JWKS fetched ${auth.provider.jwksFetches}x, discovery ${auth.provider.discoveryFetches}x`,
      ...httpTable(auth.http),
    );
  }
  lines.push(
    `${engine}: mcp-insights sync (${sync.records} records): full ${sync.fullMedianMs} ms (median of ${sync.fullMs.join(', ')}), unchanged re-sync ${sync.resyncMedianMs} ms (median of ${sync.resyncMs.join(', ')})`,
    ...targetLines(result.targets, 'anonymous'),
    ...(auth ? targetLines(auth.targets, 'auth on') : []),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      engine: { type: 'string', default: 'both' },
      auth: { type: 'string', default: 'both' },
      duration: { type: 'string', default: '10' },
      replicas: { type: 'string' },
    },
    strict: true,
  });
  if (values.replicas !== undefined) {
    const count = Number(values.replicas);
    if (!Number.isInteger(count) || count < 2) throw new Error(`--replicas: "${values.replicas}" must be a whole number of at least 2`);
    const result = await measureReplicas(count, Number(values.duration), { runLoad, ensurePostgres, adminQuery, adminUrl: ADMIN_URL, log });
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(REPLICA_RESULTS, `${JSON.stringify({ date: new Date().toISOString(), ...(result as object) }, null, 2)}\n`);
    return;
  }
  const engineArg = values.engine;
  if (!['pglite', 'postgres', 'both'].includes(engineArg)) throw new Error(`--engine: "${engineArg}" must be pglite, postgres or both`);
  const authArg = values.auth;
  if (!['off', 'on', 'both'].includes(authArg)) throw new Error(`--auth: "${authArg}" must be off, on or both`);
  const duration = Number(values.duration);
  if (!Number.isInteger(duration) || duration < 1) throw new Error(`--duration: "${values.duration}" must be a whole number of seconds`);
  const engines: Engine[] = engineArg === 'both' ? ['pglite', 'postgres'] : [engineArg as Engine];
  const anonymous = authArg !== 'on';
  const authOn = authArg !== 'off';

  const scratch = await mkdtemp(join(tmpdir(), 'toolyard-bench-'));
  const report: {
    date: string;
    machine: { cpus: number; model: string; node: string };
    auth: string;
    engines: Partial<Record<Engine, EngineResult | { skipped: string }>>;
  } = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
    auth: authArg,
    engines: {},
  };
  let failed = false;
  try {
    let seed: SeedCatalog | undefined;
    const seedPath = join(scratch, 'seed-catalog.json');
    if (anonymous) {
      log(`generating ${SEED_SERVERS} servers x ${SEED_VERSIONS} versions`);
      seed = generateSeedCatalog(SEED_SERVERS, SEED_VERSIONS);
      await writeFile(seedPath, seed.text);
    }
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
      const measured = seed ? await measureAnonymous(engine, scratch, seed, seedPath, duration) : {};
      const auth = authOn ? await measureAuth(engine, scratch, duration) : undefined;
      const sync = await measureSync(engine, scratch);
      const result: EngineResult = { ...measured, ...(auth && { auth }), sync, targets: assess(measured.http, sync) };
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
