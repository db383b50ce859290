/**
 * `npm run bench:llm-gateway`: the LLM gateway, in two measurements.
 *
 * 1. Throughput and added latency at 32 concurrent streams: OpenAI chat completions streamed from one
 *    upstream (bench/llm-upstream.ts, its own process) four ways, taking turns in slices: direct to the
 *    upstream; through a bare node:http pass-through (the floor); through `@portkey-ai/gateway` from npm
 *    (the peer: an open gateway without budgets, its own process); and through Toolyard's gateway with a
 *    virtual key, the pricing catalog and budgets on (every request reserved, settled and charged on the
 *    embedded database). Targets: at least 70 % of the floor's requests per second and at least the
 *    peer's; p50 at most 1 ms above the floor's. Afterwards every Toolyard request must have its usage event.
 * 2. Overspend under concurrency: three platform replicas on one PostgreSQL database, a budget with room
 *    for exactly 50 requests, 200 concurrent requests spread over the replicas. Target, in every run:
 *    exactly 50 admitted and nothing charged beyond the limit.
 *
 * Options: --duration SECONDS (20, in five slices, each after its warm-up), --runs N (5), --pace-ms N (0: the
 * upstream answers as fast as it can; N: it streams its ten chunks N ms apart, as a provider does while
 * generating, see bench/llm-upstream.ts; results then go to bench/results/llm-gateway-paced.json),
 * --explain (where the floor's and Toolyard's time goes, see bench/llm-explain.ts; results then go to a file
 * of their own, ending in -explained.json).
 * PostgreSQL: TOOLYARD_BENCH_DATABASE_URL (see harness.ts).
 * Writes bench/results/llm-gateway.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../src/core/net/free-port.js';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';
import { Money, formatMoney } from '../src/platform/money.js';
import { closeServer, listen } from './ceiling-server.js';
import { adminQuery, BENCH_ADMIN_URL, combineSlices, log, runLoad, sliceWarmupSeconds } from './harness.js';
import { createExplainer, explain, noSamples, type ExplainSamples } from './llm-explain.js';
import { createPassThrough } from './llm-floor.js';
import type { LoadRequest, LoadResult } from './load-worker.js';

const ROOT = new URL('..', import.meta.url).pathname;
/** A paced run writes beside the default one, which the README's main table quotes. */
const resultsOf = (paceMs: number, explained: boolean) => new URL(`./results/llm-gateway${paceMs > 0 ? '-paced' : ''}${explained ? '-explained' : ''}.json`, import.meta.url);
const UPSTREAM = new URL('./llm-upstream.ts', import.meta.url).pathname;
const PORTKEY = new URL('../node_modules/@portkey-ai/gateway/build/start-server.js', import.meta.url).pathname;
const PORTKEY_PEER = new URL('./portkey-peer.ts', import.meta.url).pathname;
const CONNECTIONS = 32;
const SLICES = 5;
const TARGETS = { floorRatio: 0.7, peerRatio: 1, addedP50Ms: 1, admitted: 50 };
/** The benchmark's own catalog entry: simple rates make the reservation bound easy to state. */
const BENCH_MODEL = 'bench-model';
const RATES = { inputUsdPerMillion: '1', outputUsdPerMillion: '2' };
const MAX_TOKENS = 64;
const UPSTREAM_KEY = 'sk-bench-upstream';

type Mode = 'stream' | 'json';

function requestBody(mode: Mode): string {
  const messages = [{ role: 'user', content: 'Count to eight.' }];
  return JSON.stringify(
    mode === 'stream' ? { model: BENCH_MODEL, messages, stream: true, stream_options: { include_usage: true }, max_tokens: MAX_TOKENS } : { model: BENCH_MODEL, messages, max_tokens: MAX_TOKENS },
  );
}

function startProcess(args: string[], what: string, ready: (line: string) => boolean): Promise<{ child: ChildProcess; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find(ready);
      if (line !== undefined) resolve({ child, line: line.trim() });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code ?? 'a signal'}: ${output.slice(-2000)}`)));
  });
}

async function startUpstream(paceMs: number): Promise<{ origin: string; child: ChildProcess }> {
  const { child, line } = await startProcess(['--import', 'tsx', UPSTREAM, `--pace-ms=${String(paceMs)}`], 'the upstream', (text) => text.startsWith('http://'));
  return { origin: line, child };
}

async function startPortkey(): Promise<{ origin: string; child: ChildProcess }> {
  const port = await freePort();
  const { child } = await startProcess(['--import', 'tsx', PORTKEY_PEER, PORTKEY, `--port=${port}`, '--headless'], '@portkey-ai/gateway', (text) => text.includes('Ready for connections'));
  return { origin: `http://127.0.0.1:${port}`, child };
}

interface Platform {
  app: PlatformApp;
  origin: string;
}

async function startPlatform(upstream: string, keyFile: string, database: Record<string, unknown>): Promise<Platform> {
  const config = parsePlatformConfig({
    auth: { mode: 'anonymous' },
    database,
    llmGateway: { providers: [{ name: 'openai', wireFormat: 'openai', baseUrl: `${upstream}/v1`, apiKeyFile: keyFile }] },
    logging: { level: 'warn' },
  });
  const app = await buildPlatformApp({ config, logger: silentLogger });
  app.start();
  return { app, origin: await app.http.listen({ host: '127.0.0.1', port: 0 }) };
}

async function call(origin: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; etag: string | null }> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown), etag: response.headers.get('etag') };
}

async function expectStatus(origin: string, method: string, path: string, status: number, body?: unknown, headers?: Record<string, string>): Promise<unknown> {
  const answer = await call(origin, method, path, body, headers);
  if (answer.status !== status) throw new Error(`${method} ${path} answered ${answer.status}, not ${status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The catalog entry, a virtual key of the anonymous user and the budgets; returns the key's secret. */
async function prepare(origin: string, budgets: unknown): Promise<string> {
  await expectStatus(origin, 'PUT', `/v1/budgets/pricing/entries/openai/${BENCH_MODEL}`, 201, { vendor_b: RATES }, { 'if-match': '*' });
  const key = (await expectStatus(origin, 'POST', '/v1/me/keys', 201, { name: 'bench' })) as { secret: string };
  await expectStatus(origin, 'PUT', '/v1/budgets', 200, budgets);
  return key.secret;
}

type WayName = 'direct' | 'floor' | 'portkey' | 'toolyard' | 'toolyardPostgres';

/** A database of its own on the benchmark's PostgreSQL; undefined when PostgreSQL cannot be reached. */
async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const name = `toolyard_bench_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  try {
    await adminQuery(`create database ${name}`);
  } catch {
    return undefined;
  }
  const url = new URL(BENCH_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`).catch(() => undefined) };
}

const ROOMY_BUDGETS = { default_user: { day_limit_usd: '1000000', month_limit_usd: '1000000' }, users: [], groups: [] };

async function measureThroughput(upstream: string, keyFile: string, duration: number, mode: Mode, explainer: ReturnType<typeof createExplainer> | undefined) {
  const platform = await startPlatform(upstream, keyFile, { dataDir: 'memory://' });
  const database = await scratchDatabase();
  const onPostgres = database && (await startPlatform(upstream, keyFile, { url: database.url, maxConnections: 8 }));
  const floor = createPassThrough(upstream);
  const portkey = await startPortkey();
  try {
    const secret = await prepare(platform.origin, ROOMY_BUDGETS);
    const postgresSecret = onPostgres && (await prepare(onPostgres.origin, ROOMY_BUDGETS));
    const floorOrigin = await listen(floor);
    const body = requestBody(mode);
    const request = (path: string, headers: Record<string, string>): LoadRequest[] => [{ method: 'POST', path, body, headers: { 'content-type': 'application/json', ...headers } }];
    const upstreamAuth = { authorization: `Bearer ${UPSTREAM_KEY}` };
    const candidates: Record<WayName, { origin: string; requests: LoadRequest[] }> = {
      direct: { origin: upstream, requests: request('/v1/chat/completions', upstreamAuth) },
      floor: { origin: floorOrigin, requests: request('/v1/chat/completions', upstreamAuth) },
      portkey: { origin: portkey.origin, requests: request('/v1/chat/completions', { ...upstreamAuth, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream}/v1` }) },
      toolyard: { origin: platform.origin, requests: request('/llm/v1/chat/completions', { authorization: `Bearer ${secret}` }) },
      ...(onPostgres && postgresSecret && { toolyardPostgres: { origin: onPostgres.origin, requests: request('/llm/v1/chat/completions', { authorization: `Bearer ${postgresSecret}` }) } }),
    } as Record<WayName, { origin: string; requests: LoadRequest[] }>;
    // a way that cannot answer the request correctly is reported, not measured
    const failed: Partial<Record<WayName, string>> = {};
    const ways: Partial<Record<WayName, { origin: string; requests: LoadRequest[] }>> = {};
    for (const [name, way] of Object.entries(candidates) as [WayName, (typeof candidates)[WayName]][]) {
      const first = way.requests[0];
      const response = await fetch(`${way.origin}${first?.path ?? ''}`, { method: 'POST', headers: first?.headers ?? {}, body });
      const text = await response.text();
      const complete = response.status === 200 && (mode === 'json' ? text.includes('"usage"') : text.includes('[DONE]'));
      if (complete) ways[name] = way;
      else if (name === 'toolyard' || name === 'floor') throw new Error(`${name} answered ${response.status}: ${text.slice(0, 500)}`);
      else failed[name] = `${response.status} ${text.slice(0, 200)}`;
    }
    const slices: Partial<Record<WayName, LoadResult[]>> = {};
    const explained: Partial<Record<WayName, ExplainSamples>> = {};
    const sliceSeconds = Math.max(1, Math.round(duration / SLICES));
    for (let slice = 0; slice < SLICES; slice++) {
      log(`[${mode}] slice ${slice + 1} of ${SLICES}: ${Object.keys(ways).join(', ')}; ${CONNECTIONS} connections, ${sliceSeconds} s each`);
      for (const [name, way] of Object.entries(ways) as [WayName, (typeof candidates)[WayName]][]) {
        explainer?.take();
        (slices[name] ??= []).push(await runLoad({ ...way, connections: CONNECTIONS, durationSeconds: sliceSeconds, warmupSeconds: sliceWarmupSeconds(slice) }));
        const seen = explainer?.take();
        if (seen && (name === 'floor' || name === 'toolyard')) {
          const kept = (explained[name] ??= noSamples());
          for (const key of Object.keys(seen) as (keyof ExplainSamples)[]) kept[key].push(...seen[key]);
        }
      }
    }
    const combined = Object.fromEntries(Object.entries(slices).map(([name, runs]) => [name, combineSlices(runs)])) as Partial<Record<WayName, ReturnType<typeof combineSlices>>>;
    const { floor: floorRun, toolyard, portkey: peer, toolyardPostgres } = combined;
    if (!floorRun || !toolyard) throw new Error('the floor and Toolyard were not measured');
    const sent = (slices.toolyard ?? []).reduce((sum, run) => sum + run.requests, 0);
    return {
      mode,
      connections: CONNECTIONS,
      slices: SLICES,
      sliceSeconds,
      ...combined,
      failed,
      floorRatio: toolyard.requestsPerSecond / floorRun.requestsPerSecond,
      peerRatio: peer ? toolyard.requestsPerSecond / peer.requestsPerSecond : null,
      addedP50Ms: toolyard.p50Ms - floorRun.p50Ms,
      postgresFloorRatio: toolyardPostgres ? toolyardPostgres.requestsPerSecond / floorRun.requestsPerSecond : null,
      usageEvents: await settledEvents(platform.origin, sent),
      ...(explainer && { explained: Object.fromEntries(Object.entries(explained).map(([name, samples]) => [name, explain(samples)])) }),
    };
  } finally {
    portkey.child.kill();
    await closeServer(floor);
    await platform.app.close();
    await onPostgres?.app.close();
    await database?.drop();
  }
}

/** Usage events written for the Toolyard way (warm-up and the first probe included), waiting for settlement to catch up. */
async function settledEvents(origin: string, atLeast: number): Promise<number> {
  let count = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    count = 0;
    let cursor: string | undefined;
    do {
      const page = (await expectStatus(origin, 'GET', `/v1/usage-events?limit=10000${cursor ? `&cursor=${cursor}` : ''}`, 200)) as { events: unknown[]; next_cursor?: string };
      count += page.events.length;
      cursor = page.next_cursor;
    } while (cursor);
    if (count >= atLeast) return count;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return count;
}

/** R of Part 3 §1.2 for a text-only request of `bytes` bytes with max_tokens set. */
function reservationBound(bytes: number): Money {
  return new Money(bytes + 4096).times(RATES.inputUsdPerMillion).plus(new Money(MAX_TOKENS).times(RATES.outputUsdPerMillion)).div(1_000_000);
}

async function measureOverspend(upstream: string, keyFile: string, runs: number) {
  const body = requestBody('json');
  const bound = reservationBound(Buffer.byteLength(body));
  const limit = bound.times(TARGETS.admitted);
  const results: { admitted: number; refused: number; other: number; chargedUsd: string; limitUsd: string; overspendUsd: string }[] = [];
  for (let run = 0; run < runs; run++) {
    const database = await scratchDatabase();
    if (!database) throw new Error(`cannot create a database on ${BENCH_ADMIN_URL}`);
    const replicas: Platform[] = [];
    try {
      for (let index = 0; index < 3; index++) replicas.push(await startPlatform(upstream, keyFile, { url: database.url, maxConnections: 8 }));
      const [first] = replicas;
      if (!first) throw new Error('no replicas');
      const secret = await prepare(first.origin, { default_user: { day_limit_usd: null, month_limit_usd: null }, users: [{ subject_id: 'anonymous', day_limit_usd: formatMoney(limit), month_limit_usd: null }], groups: [] });
      // every replica serves the entry and knows the key before the burst
      for (const replica of replicas) await waitForModel(replica.origin, secret);
      log(`[overspend] run ${run + 1} of ${runs}: 200 concurrent requests over 3 replicas, room for ${TARGETS.admitted} (limit ${formatMoney(limit)} USD)`);
      const statuses = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          fetch(`${replicas[index % replicas.length]?.origin ?? ''}/llm/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
            body,
          }).then(async (response) => {
            await response.arrayBuffer();
            return response.status;
          }),
        ),
      );
      const admitted = statuses.filter((status) => status === 200).length;
      const refused = statuses.filter((status) => status === 402).length;
      const charged = await chargedTotal(first.origin, admitted);
      results.push({
        admitted,
        refused,
        other: statuses.length - admitted - refused,
        chargedUsd: formatMoney(charged),
        limitUsd: formatMoney(limit),
        overspendUsd: formatMoney(Money.max(0, charged.minus(limit))),
      });
    } finally {
      for (const replica of replicas) await replica.app.close();
      await database.drop();
    }
  }
  return { replicas: 3, requests: 200, boundUsd: formatMoney(bound), runs: results };
}

async function waitForModel(origin: string, secret: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const models = await call(origin, 'GET', '/llm/v1/models', undefined, { authorization: `Bearer ${secret}` });
    if (models.status === 200 && (models.body as { data: { id: string }[] }).data.some((model) => model.id === BENCH_MODEL)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${origin} does not serve ${BENCH_MODEL}`);
}

/** The user-scope charges of the run, once every admitted request has settled. */
async function chargedTotal(origin: string, admitted: number): Promise<Money> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const page = (await expectStatus(origin, 'GET', '/v1/charges?scope=user&limit=10000', 200)) as { charges: { charged_usd: string }[] };
    if (page.charges.length >= admitted) return page.charges.reduce((sum, charge) => sum.plus(charge.charged_usd), new Money(0));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`fewer than ${admitted} charges were written`);
}

function describe(parts: ReturnType<typeof explain>): string {
  const part = (label: string, figures: ReturnType<typeof explain>[keyof ReturnType<typeof explain>]) => (figures ? [`${label} ${figures.p50Ms} / ${figures.p90Ms}`] : []);
  return [...part('in the server', parts.inServer), ...part('turnaround', parts.turnaround), ...part('upstream send delay', parts.upstreamSendDelay)].join(', ');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '20' }, runs: { type: 'string', default: '5' }, 'pace-ms': { type: 'string', default: '0' }, explain: { type: 'boolean', default: false } },
  });
  const scratch = await mkdtemp(join(tmpdir(), 'toolyard-bench-llm-'));
  const keyFile = join(scratch, 'upstream.key');
  await writeFile(keyFile, UPSTREAM_KEY, { mode: 0o600 });
  const paceMs = Number(values['pace-ms']);
  if (!Number.isFinite(paceMs) || paceMs < 0) throw new Error(`--pace-ms: ${values['pace-ms']} is not a number of milliseconds`);
  const upstream = await startUpstream(paceMs);
  const explainer = values.explain ? createExplainer() : undefined;
  try {
    const streaming = await measureThroughput(upstream.origin, keyFile, Number(values.duration), 'stream', explainer);
    const whole = await measureThroughput(upstream.origin, keyFile, Number(values.duration), 'json', explainer);
    let overspend: Awaited<ReturnType<typeof measureOverspend>> | { skipped: string };
    try {
      await adminQuery('select 1');
      overspend = await measureOverspend(upstream.origin, keyFile, Number(values.runs));
    } catch (error) {
      overspend = { skipped: `PostgreSQL at ${BENCH_ADMIN_URL}: ${(error as Error).message}` };
    }
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', node: process.version },
      upstreamPaceMs: paceMs,
      targets: TARGETS,
      streaming,
      whole,
      overspend,
      verdict: {
        floorRatio: streaming.floorRatio >= TARGETS.floorRatio,
        peerRatio: (streaming.peerRatio ?? whole.peerRatio ?? 0) >= TARGETS.peerRatio,
        addedP50: streaming.addedP50Ms <= TARGETS.addedP50Ms,
        overspend: 'runs' in overspend ? overspend.runs.every((run) => run.admitted === TARGETS.admitted && run.overspendUsd === '0.00') : null,
      },
    };
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(resultsOf(paceMs, values.explain), `${JSON.stringify(result, null, 2)}\n`);
    const way = (name: string, run: ReturnType<typeof combineSlices> | undefined, failure: string | undefined) =>
      run ? `  ${name}: ${run.requestsPerSecond.toFixed(0)} req/s, p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(1)} ms, non-2xx ${run.non2xx}` : `  ${name}: not measured (${failure ?? 'absent'})`;
    const summary = (figures: typeof streaming) => [
      `${figures.mode === 'stream' ? 'streamed' : 'whole (non-streaming)'} chat completions, ${CONNECTIONS} concurrent, ${paceMs > 0 ? `the upstream pacing its chunks ${String(paceMs)} ms apart` : 'the upstream as fast as it can'}:`,
      way('direct to the upstream', figures.direct, figures.failed.direct),
      way('node:http pass-through (floor)', figures.floor, undefined),
      way('@portkey-ai/gateway (peer)', figures.portkey, figures.failed.portkey),
      way('Toolyard (keys, pricing, budgets), embedded database', figures.toolyard, undefined),
      way('Toolyard (keys, pricing, budgets), PostgreSQL', figures.toolyardPostgres, figures.postgresFloorRatio === null ? 'PostgreSQL not reachable' : undefined),
      `  Toolyard: ${(figures.floorRatio * 100).toFixed(1)} % of the floor (target >= ${TARGETS.floorRatio * 100} %), ` +
        `${figures.peerRatio === null ? 'peer not measured' : `${figures.peerRatio.toFixed(2)}x the peer (target >= 1)`}, ` +
        `p50 +${figures.addedP50Ms.toFixed(2)} ms over the floor (target <= ${TARGETS.addedP50Ms} ms); ${figures.usageEvents} usage events written`,
      ...Object.entries(figures.explained ?? {}).map(([name, parts]) => `  where the time goes, ${name} (p50 / p90 ms): ${describe(parts)}`),
    ];
    const lines = [
      '',
      ...summary(streaming),
      ...summary(whole),
      'runs' in overspend
        ? `overspend, 200 requests over 3 replicas, room for ${TARGETS.admitted}: ${overspend.runs.map((run) => `${run.admitted} admitted / ${run.refused} refused / overspend ${run.overspendUsd}`).join('; ')}`
        : `overspend: not measured (${overspend.skipped})`,
      `wrote ${resultsOf(paceMs, values.explain).pathname}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    explainer?.close();
    upstream.child.kill();
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
