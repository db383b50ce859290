/**
 * `npm run bench:platform-keys`: the virtual keys of the platform, in two measurements.
 *
 * 1. Throughput of the LLM gateway's authentication step alone: the real platform app (OAuth mode,
 *    embedded database, 500 keys) listening on loopback, with routes that only authenticate, loaded
 *    with keep-alive connections by autocannon in its own process, each request carrying one of 100
 *    keys in turn; against a bare node:http server answering the same bytes (the ceiling), the ways
 *    taking turns in five slices of the run. Target: at least 70 % of the ceiling. To tell the step's own cost
 *    from the platform's HTTP stack, the same app also serves the same bytes from a route without it.
 * 2. Revoke-to-refusal across replicas: three platform apps on one PostgreSQL database; a key is
 *    revoked through one and the two others are asked with it until they refuse it. The time runs from
 *    sending the revoke to the first refusal, per replica, over 100 trials. Target: p99 at most 1 s.
 *
 * Options: --duration SECONDS (10), --trials N (100). PostgreSQL: TOOLYARD_BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres (an administrator connection: the benchmark creates and drops
 * its own database). Writes bench/results/platform-keys.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';
import { AUTH_ONLY_PATH, registerAuthOnlyRoutes } from '../src/platform/keys/gateway-auth-testing.js';
import { closeServer, listen } from './ceiling-server.js';
import { adminQuery, BENCH_ADMIN_URL as ADMIN_URL, combineSlices as combine, log, percentile, runLoad, sliceWarmupSeconds } from './harness.js';
import type { LoadResult } from './load-worker.js';
import { startOidcProvider, type BenchOidcProvider } from './oidc.js';

const RESULTS = new URL('./results/platform-keys.json', import.meta.url);
const AUDIENCE = 'toolyard-platform';
const CONNECTIONS = 32;
const SLICES = 5;
const KEYS = 500;
const KEYS_IN_LOAD = 100;
const ROUTE = `${AUTH_ONLY_PATH}/openai`;
/** The same answer without the authentication step (this benchmark's app only). */
const UNAUTHENTICATED_ROUTE = '/llm/bench/no-authentication';
const TARGETS = { throughputRatio: 0.7, revokeP99Ms: 1_000 };

/** What the route without authentication answers: set to the authentication route's answer before loading. */
let sameAnswer: unknown = {};

/** A platform app with the authentication-only routes, listening on loopback. */
async function startPlatform(provider: BenchOidcProvider, database: Record<string, unknown>): Promise<{ app: PlatformApp; origin: string }> {
  const config = parsePlatformConfig({
    auth: { mode: 'oauth', oauth: { providers: [{ name: 'bench', issuerUrl: provider.issuer, audience: AUDIENCE }] } },
    database,
    logging: { level: 'warn' },
  });
  const app = await buildPlatformApp({
    config,
    logger: silentLogger,
    extraRoutes: (context, features) => {
      registerAuthOnlyRoutes(context.http, features.keys.authentication);
      context.http.get(UNAUTHENTICATED_ROUTE, { schema: { hide: true } }, () => sameAnswer);
    },
  });
  app.start();
  const origin = await app.http.listen({ host: '127.0.0.1', port: 0 });
  return { app, origin };
}

async function createKeys(origin: string, token: string, count: number): Promise<{ id: string; secret: string }[]> {
  const keys: { id: string; secret: string }[] = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${origin}/v1/me/keys`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `bench-${index}` }) });
    if (response.status !== 201) throw new Error(`creating a key answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { key: { id: string }; secret: string };
    keys.push({ id: body.key.id, secret: body.secret });
  }
  return keys;
}

/** 200, or the refusal code of the OpenAI-format 401. */
async function verdict(origin: string, secret: string): Promise<string> {
  const response = await fetch(`${origin}${ROUTE}`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json()) as { error?: { code?: string } };
  return response.status === 200 ? 'accepted' : (body.error?.code ?? String(response.status));
}

/** Asks every 2 ms (a client's next request) until the replica answers `expected`; the time of that answer. */
async function until(origin: string, secret: string, expected: string, timeoutMs = 30_000): Promise<number> {
  const start = performance.now();
  while ((await verdict(origin, secret)) !== expected) {
    if (performance.now() - start > timeoutMs) throw new Error(`${origin} did not answer ${expected} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now();
}

async function measureThroughput(provider: BenchOidcProvider, token: string, duration: number) {
  const { app, origin } = await startPlatform(provider, { dataDir: 'memory://' });
  const ceiling = createServer();
  try {
    log(`[throughput] creating ${KEYS} keys`);
    const keys = await createKeys(origin, token, KEYS);
    const revoked = keys.at(-1);
    if (!revoked) throw new Error('no keys');
    await fetch(`${origin}/v1/me/keys/${revoked.id}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    if ((await verdict(origin, revoked.secret)) !== 'key_revoked') throw new Error('a revoked key was not refused');
    const sample = await fetch(`${origin}${ROUTE}`, { headers: { authorization: `Bearer ${keys[0]?.secret ?? ''}` } });
    if (sample.status !== 200) throw new Error(`the authentication route answered ${sample.status}`);
    // the ceiling answers the same bytes the route does
    const bytes = Buffer.from(await sample.text());
    sameAnswer = JSON.parse(bytes.toString('utf8'));
    if ((await fetch(`${origin}${UNAUTHENTICATED_ROUTE}`).then((response) => response.text())) !== bytes.toString('utf8')) throw new Error('the route without authentication answers other bytes');
    ceiling.on('request', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
      response.end(bytes);
    });
    const ceilingOrigin = await listen(ceiling);
    const requests = keys.slice(0, KEYS_IN_LOAD).map((key) => ({ path: ROUTE, headers: { authorization: `Bearer ${key.secret}` } }));
    const ways = {
      ceiling: { origin: ceilingOrigin, requests },
      platform: { origin, requests },
      withoutStep: { origin, requests: requests.map((request) => ({ ...request, path: UNAUTHENTICATED_ROUTE })) },
    };
    // the ways take turns in short slices, so that whatever else the machine does falls on each alike
    const slices: Record<keyof typeof ways, LoadResult[]> = { ceiling: [], platform: [], withoutStep: [] };
    const sliceSeconds = Math.max(1, Math.round(duration / SLICES));
    for (let slice = 0; slice < SLICES; slice++) {
      log(`[throughput] slice ${slice + 1} of ${SLICES}: bare node:http, the authentication step, the same app without it; ${CONNECTIONS} connections, ${sliceSeconds} s each`);
      for (const [name, way] of Object.entries(ways) as [keyof typeof ways, (typeof ways)[keyof typeof ways]][]) {
        slices[name].push(await runLoad({ ...way, connections: CONNECTIONS, durationSeconds: sliceSeconds, warmupSeconds: sliceWarmupSeconds(slice) }));
      }
    }
    const ceilingRun = combine(slices.ceiling);
    const platform = combine(slices.platform);
    const withoutStep = combine(slices.withoutStep);
    return {
      route: ROUTE,
      keys: KEYS,
      keysInLoad: KEYS_IN_LOAD,
      connections: CONNECTIONS,
      slices: SLICES,
      sliceSeconds,
      platform,
      ceiling: ceilingRun,
      ratio: platform.requestsPerSecond / ceilingRun.requestsPerSecond,
      /** per slice: the step's rate over the ceiling's measured just before it */
      sliceRatios: slices.platform.map((run, index) => run.requestsPerSecond / (slices.ceiling[index]?.requestsPerSecond ?? Number.NaN)),
      withoutStep: { ...withoutStep, ratio: withoutStep.requestsPerSecond / ceilingRun.requestsPerSecond },
      /** requests/s with the step relative to the same app without it: the step's own cost. */
      stepRatio: platform.requestsPerSecond / withoutStep.requestsPerSecond,
    };
  } finally {
    await closeServer(ceiling);
    await app.close();
  }
}

async function measureRevocation(provider: BenchOidcProvider, token: string, trials: number) {
  const name = `toolyard_bench_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const replicas: { app: PlatformApp; origin: string }[] = [];
  try {
    for (let index = 0; index < 3; index++) replicas.push(await startPlatform(provider, { url: url.toString(), maxConnections: 4 }));
    const [writer, ...others] = replicas;
    if (!writer) throw new Error('no replicas');
    log(`[revocation] three replicas on one PostgreSQL; creating ${trials} keys on the first`);
    const keys = await createKeys(writer.origin, token, trials);
    for (const key of keys) for (const other of others) await until(other.origin, key.secret, 'accepted');
    const refusalMs: number[] = [];
    const slowestMs: number[] = [];
    for (const key of keys) {
      const start = performance.now();
      const revoking = fetch(`${writer.origin}/v1/me/keys/${key.id}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      const refused = await Promise.all(others.map((other) => until(other.origin, key.secret, 'key_revoked')));
      const answer = await revoking;
      if (answer.status !== 200) throw new Error(`revoke answered ${answer.status}`);
      const times = refused.map((time) => time - start);
      refusalMs.push(...times);
      slowestMs.push(Math.max(...times));
    }
    return {
      replicas: 3,
      trials,
      changePollMs: 1_000,
      refusals: refusalMs.length,
      p50Ms: percentile(refusalMs, 50),
      p99Ms: percentile(refusalMs, 99),
      maxMs: Math.max(...refusalMs),
      slowestReplicaP99Ms: percentile(slowestMs, 99),
    };
  } finally {
    for (const replica of replicas) await replica.app.close();
    await adminQuery(`drop database if exists ${name} with (force)`).catch(() => undefined);
  }
}

/**
 * The SCIM provisioning figure of the same issue comes from bench/platform-provisioning.ts when the
 * repository has it (its own script measures it; this one gathers the platform's figures in one file).
 */
async function measureProvisioning(): Promise<unknown> {
  const specifier = './platform-provisioning.js';
  let module: { runProvisioningBench?: () => Promise<unknown> };
  try {
    module = (await import(specifier)) as typeof module;
  } catch {
    return { skipped: 'bench/platform-provisioning.ts is not in this tree' };
  }
  if (typeof module.runProvisioningBench !== 'function') return { skipped: 'bench/platform-provisioning.ts exports no runProvisioningBench' };
  log('[provisioning] bench/platform-provisioning.ts');
  return module.runProvisioningBench();
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, trials: { type: 'string', default: '100' } } });
  const duration = Number(values.duration);
  const trials = Number(values.trials);
  const provider = await startOidcProvider(AUDIENCE);
  try {
    const token = await provider.mint('bench-user', { preferred_username: 'bench' }, 3_600);
    const throughput = await measureThroughput(provider, token, duration);
    let revocation: Awaited<ReturnType<typeof measureRevocation>> | { skipped: string };
    try {
      await adminQuery('select 1');
      revocation = await measureRevocation(provider, token, trials);
    } catch (error) {
      revocation = { skipped: `PostgreSQL at ${ADMIN_URL}: ${(error as Error).message}` };
    }
    const provisioning = await measureProvisioning();
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', node: process.version },
      targets: TARGETS,
      throughput,
      revocation,
      provisioning,
      verdict: {
        throughput: throughput.ratio >= TARGETS.throughputRatio,
        revocation: 'p99Ms' in revocation ? revocation.p99Ms <= TARGETS.revokeP99Ms : null,
      },
    };
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    const lines = [
      '',
      `key authentication step: ${throughput.platform.requestsPerSecond.toFixed(0)} req/s (p99 ${throughput.platform.p99Ms} ms, non-2xx ${throughput.platform.non2xx}); ` +
        `bare node:http ${throughput.ceiling.requestsPerSecond.toFixed(0)} req/s; ratio ${(throughput.ratio * 100).toFixed(1)} % (target >= ${TARGETS.throughputRatio * 100} %)`,
      `the same platform route without the step: ${throughput.withoutStep.requestsPerSecond.toFixed(0)} req/s (${(throughput.withoutStep.ratio * 100).toFixed(1)} % of bare node:http); ` +
        `with the step ${(throughput.stepRatio * 100).toFixed(1)} % of that`,
      'p99Ms' in revocation
        ? `revoke to refusal on the other replicas: p50 ${revocation.p50Ms.toFixed(1)} ms, p99 ${revocation.p99Ms.toFixed(1)} ms, max ${revocation.maxMs.toFixed(1)} ms over ${revocation.trials} trials (target p99 <= ${TARGETS.revokeP99Ms} ms)`
        : `revoke to refusal: not measured (${revocation.skipped})`,
      `wrote ${RESULTS.pathname}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await provider.close();
  }
}

await main();
