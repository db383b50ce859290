/**
 * `npm run bench:ai-policies` (tsx bench/ai-policies.ts): AI policies at 10,000, in two measurements.
 *
 * 1. List with a label selector: the real platform app (OAuth with the bench OpenID provider, the embedded
 *    database in a data directory, the AI gateway rate limit off), 10,000 AIPolicy objects
 *    (bench/ai-policies-data.ts) written straight into its table and read into its view, then
 *    `GET /ai-gateway/v1/policies?labelSelector=...` with an auditor's bearer token for six selectors,
 *    autocannon in its own process; against a bare node:http server answering, for each same request,
 *    the bytes the platform answered to it (the floor), the two taking turns slice by slice.
 *    Target: p99 ≤ 20 ms.
 * 2. The admission check: `admitModel(enforcement.decide(claims))` of the app's loaded enforcement set,
 *    for callers matching one policy, several, none, and with 60 groups; against a straightforward
 *    scan of every policy's matchers by the same claim rule (the naive check), the two in turns.
 *    Target: ≤ 50 µs per request (the mean of each kind of caller; p99 reported beside).
 *
 * Options: --duration SECONDS per selector and way (6), --connections N (4), --calls N per caller kind
 * and way (50,000). Writes bench/results/ai-policies.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';
import { closeServer, listen } from './ceiling-server.js';
import { CALLER_KINDS, callers, GATEWAY, POLICIES, seedPolicies } from './ai-policies-data.js';
import { measureAdmission, type AdmissionFigures } from './ai-policies-admission.js';
import { combineSlices, log, runLoad, sliceWarmupSeconds } from './harness.js';
import type { LoadResult } from './load-worker.js';
import { startOidcProvider } from './oidc.js';

const RESULTS = new URL('./results/ai-policies.json', import.meta.url);
const AUDIENCE = 'toolyard-platform';
const SLICES = 3;
const TARGETS = { listP99Ms: 20, admissionMicros: 50 };
const PATH = '/ai-gateway/v1/policies';

/** The selectors measured: what each asks, and the query string. */
const SELECTORS: Record<string, string> = {
  equality: 'team=team-42',
  setIn: 'tier in (gold,silver),env=prod',
  setNotin: 'tier notin (gold,bronze)',
  notExists: '!env',
  almostAll: 'tier',
  few: 'team=team-7,tier=gold,env=staging',
};

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

async function startPlatform(issuer: string, dataDir: string): Promise<{ app: PlatformApp; origin: string }> {
  const config = parsePlatformConfig({
    auth: { mode: 'oauth', oauth: { providers: [{ name: 'bench', issuerUrl: issuer, audience: AUDIENCE }] }, authz: { roles: { auditor: [{ roles: 'auditor' }] } } },
    database: { dataDir },
    logging: { level: 'warn' },
    aiGateway: { gateway: { name: GATEWAY, namespace: 'ai-system' }, rateLimit: { requestsPerSecond: 0, burst: 0 } },
  });
  const app = await buildPlatformApp({ config, logger: silentLogger });
  app.start();
  const origin = await app.http.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin };
}

async function measureList(origin: string, token: string, options: { duration: number; connections: number }) {
  const headers = { authorization: `Bearer ${token}` };
  const answers = new Map<string, Buffer>();
  const shapes: Record<string, { items: number; bytes: number; nextPage: boolean }> = {};
  for (const [name, selector] of Object.entries(SELECTORS)) {
    const path = `${PATH}?labelSelector=${encodeURIComponent(selector)}`;
    const response = await fetch(`${origin}${path}`, { headers });
    const bytes = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${bytes.toString('utf8')}`);
    const body = JSON.parse(bytes.toString('utf8')) as { items: unknown[]; nextPageToken: string };
    answers.set(path, bytes);
    shapes[name] = { items: body.items.length, bytes: bytes.length, nextPage: body.nextPageToken !== '' };
  }
  // the floor: the same bytes for the same request, with nothing to do but write them
  const floor = createServer((request, response) => {
    const bytes = answers.get(request.url ?? '') ?? Buffer.from('{}');
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
    response.end(bytes);
  });
  const floorOrigin = await listen(floor);
  try {
    const sliceSeconds = Math.max(1, Math.round(options.duration / SLICES));
    const figures: Record<string, unknown> = {};
    for (const [name, selector] of Object.entries(SELECTORS)) {
      const requests = [{ path: `${PATH}?labelSelector=${encodeURIComponent(selector)}`, headers }];
      const slices: { floor: LoadResult[]; platform: LoadResult[] } = { floor: [], platform: [] };
      for (let slice = 0; slice < SLICES; slice++) {
        const order = slice % 2 === 0 ? (['platform', 'floor'] as const) : (['floor', 'platform'] as const);
        for (const way of order) {
          const load = { origin: way === 'floor' ? floorOrigin : origin, requests, connections: options.connections, durationSeconds: sliceSeconds, warmupSeconds: sliceWarmupSeconds(slice) };
          slices[way].push(await runLoad(load));
        }
      }
      const platform = combineSlices(slices.platform);
      const floorRun = combineSlices(slices.floor);
      figures[name] = {
        labelSelector: selector,
        ...shapes[name],
        platform,
        floor: floorRun,
        ratio: round(platform.requestsPerSecond / floorRun.requestsPerSecond, 3),
        met: platform.p99Ms <= TARGETS.listP99Ms && platform.non2xx === 0 && platform.errors === 0,
      };
      log(
        `[list] ${name} (${selector}): ${shapes[name]?.items ?? 0} items, ${Math.round(platform.requestsPerSecond)} req/s, p50 ${platform.p50Ms} ms, p99 ${platform.p99Ms} ms; ` +
          `floor ${Math.round(floorRun.requestsPerSecond)} req/s, p99 ${floorRun.p99Ms} ms`,
      );
    }
    return { connections: options.connections, slices: SLICES, sliceSeconds, selectors: figures };
  } finally {
    await closeServer(floor);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { duration: { type: 'string', default: '6' }, connections: { type: 'string', default: '4' }, calls: { type: 'string', default: '50000' } } });
  const provider = await startOidcProvider(AUDIENCE);
  const dataDir = await mkdtemp(join(tmpdir(), 'toolyard-bench-ai-policies-'));
  const stops: (() => Promise<void>)[] = [() => provider.close(), () => rm(dataDir, { recursive: true, force: true })];
  try {
    const { app, origin } = await startPlatform(provider.issuer, dataDir);
    stops.unshift(() => app.close());
    log(`seeding ${POLICIES} AI policies`);
    const seeding = performance.now();
    await seedPolicies(app.database.db, new Date());
    const { view, enforcement } = app.features.aiPolicies;
    await view.refresh();
    if (view.sorted().length !== POLICIES) throw new Error(`the view holds ${view.sorted().length} policies, not ${POLICIES}`);
    const seedSeconds = round((performance.now() - seeding) / 1000, 2);
    const token = await provider.mint('audrey', { roles: ['auditor'] }, 3_600);

    const list = await measureList(origin, token, { duration: Number(values.duration), connections: Number(values.connections) });
    const admission: AdmissionFigures = measureAdmission({ enforcement, policies: view.sorted(), gateway: GATEWAY, callers: callers(), calls: Number(values.calls) });

    const listSelectors = Object.values(list.selectors) as { platform: { p99Ms: number } }[];
    const worstP99 = Math.max(...listSelectors.map((figures) => figures.platform.p99Ms));
    const slowestMean = Math.max(...CALLER_KINDS.map((kind) => admission.indexed[kind].meanMicros));
    const result = {
      benchmark: 'ai-policies',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg().map((value) => round(value, 2)), node: process.version },
      method:
        `${String(POLICIES)} AIPolicy objects on the embedded database; list: autocannon in its own process, ${String(list.connections)} connections, ` +
        `${String(SLICES)} slices of ${String(list.sliceSeconds)} s per selector and way against a bare node:http server answering the same bytes; ` +
        `admission: decide + admitModel in process, ${values.calls} calls per caller kind and way, in turns with a naive scan`,
      policies: POLICIES,
      seedSeconds,
      list,
      admission,
      targets: {
        listP99Ms: { target: `<= ${String(TARGETS.listP99Ms)}`, value: worstP99, met: worstP99 <= TARGETS.listP99Ms },
        admissionMicros: { target: `<= ${String(TARGETS.admissionMicros)} (mean, each caller kind)`, value: slowestMean, met: slowestMean <= TARGETS.admissionMicros },
      },
    };
    const lines = ['', `list over ${String(POLICIES)} policies (${String(list.connections)} connections):`];
    for (const [name, figures] of Object.entries(list.selectors) as [string, { labelSelector: string; items: number; ratio: number; platform: { requestsPerSecond: number; p50Ms: number; p99Ms: number }; floor: { requestsPerSecond: number; p99Ms: number } }][]) {
      lines.push(
        `  ${name.padEnd(10)} ${figures.labelSelector.padEnd(34)} ${String(figures.items).padStart(3)} items  ${String(Math.round(figures.platform.requestsPerSecond)).padStart(5)} req/s  ` +
          `p50 ${String(figures.platform.p50Ms).padStart(3)} ms  p99 ${String(figures.platform.p99Ms).padStart(3)} ms  floor ${String(Math.round(figures.floor.requestsPerSecond)).padStart(5)} req/s (${(figures.ratio * 100).toFixed(0)} %)`,
      );
    }
    lines.push(`  worst p99 ${String(worstP99)} ms (target <= ${String(TARGETS.listP99Ms)} ms: ${result.targets.listP99Ms.met ? 'met' : 'NOT met'})`);
    lines.push(`admission check over ${String(admission.enforced)} enforced policies (µs per request: mean / p99; naive scan beside):`);
    for (const kind of [...CALLER_KINDS, 'all'] as const) {
      const indexed = admission.indexed[kind];
      const naive = admission.naive[kind];
      lines.push(
        `  ${kind.padEnd(16)} ${indexed.meanMicros.toFixed(2).padStart(7)} / ${indexed.p99Micros.toFixed(2).padStart(7)}   naive ${naive.meanMicros.toFixed(1).padStart(8)} / ${naive.p99Micros.toFixed(1).padStart(8)}   ` +
          `${(naive.meanMicros / indexed.meanMicros).toFixed(0)}x, ${indexed.matchedMean.toFixed(1)} policies matched`,
      );
    }
    lines.push(`  slowest caller kind's mean ${slowestMean.toFixed(2)} µs (target <= ${String(TARGETS.admissionMicros)} µs per request: ${result.targets.admissionMicros.met ? 'met' : 'NOT met'})`);
    process.stdout.write(`${lines.join('\n')}\n`);
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${RESULTS.pathname}`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

await main();
