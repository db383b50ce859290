/**
 * `npm run bench:connector-gateway` (tsx bench/connector-gateway.ts)
 *
 * `tools/call` round trips of server-everything's `echo` tool over Streamable HTTP, by 8 concurrent
 * official SDK clients (each its own transport), reached three ways in one run on this machine:
 * - direct: the clients talk to server-everything itself;
 * - runtime proxy: through the local runtime's reverse proxy (src/runtime/proxy/reverse-proxy.ts) with a
 *   pass-through policy, as the runtime serves a remote MCP server, in a process of its own (bench/proxy-host.ts)
 *   as the runtime's daemon is: sharing the platform's process and its JIT, it cost the gateway a tenth of its
 *   throughput (0.50–0.51 of direct against 0.55–0.56 apart, measured);
 * - connector gateway: through the platform's connector gateway (PGlite in a data directory, a virtual
 *   key per client request, the connector policy granting a group of the caller, a usage record
 *   committed before each answer), calling `everything__echo`.
 * The clients run in a process of their own (bench/proxy-client.ts); server-everything runs in its own;
 * the platform runs in this one, and the ways take turns slice by slice in a rotating order so
 * that load from elsewhere on the machine spreads over all three. Prints calls/s, p50 and p99 per way, the
 * gateway's ratio to direct against the target (≥ 0.6), the p50 each way adds, and the CPU the platform's
 * process spent per gateway call (steadier than the ratio, which moves with the machine's other load), split on
 * Linux into the HTTP thread and the others (the embedded database's thread, V8's compiler and collector); writes
 * bench/results/connector-gateway.json.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/core/telemetry/logger.js';
import { buildPlatformApp, type PlatformApp } from '../src/platform/app.js';
import { parsePlatformConfig } from '../src/platform/config.js';
import { startEverything } from '../src/runtime/proxy/reverse-proxy-testing.js';
import type { ClientOptions, ClientReady, ClientRequest, ClientSlice, ClientTarget } from './proxy-client.js';
import type { HostOptions, HostReady } from './proxy-host.js';
import { startWorker, type WorkerProcess } from './proxy-ipc.js';
import { threadCpuSince, threadTicks } from './thread-cpu.js';

const ROOT = new URL('..', import.meta.url).pathname;
const RESULTS = new URL('./results/connector-gateway.json', import.meta.url).pathname;
const CLIENT = new URL('./proxy-client.ts', import.meta.url).pathname;
const HOST = new URL('./proxy-host.ts', import.meta.url).pathname;
const CLIENTS = 8;
// per client and way: the first thousand-odd calls through the gateway still compile (JavaScript and the
// embedded database's WebAssembly); with 25 the first timed slices paid about twice the steady CPU per call
const WARMUP_CALLS = 250;
const CALLS = 400;
const SLICES = 8;
const SLICE_WARMUP = 3;
const TARGET_RATIO = 0.6;

type Way = 'direct' | 'runtimeProxy' | 'connectorGateway';
const WAYS: Way[] = ['direct', 'runtimeProxy', 'connectorGateway'];
const LABELS: Record<Way, string> = { direct: 'direct', runtimeProxy: 'runtime proxy', connectorGateway: 'connector gateway' };

const started = performance.now();
const log = (message: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;

function summarize(slices: ClientSlice[]) {
  const sorted = slices.flatMap((slice) => slice.latencies).sort((a, b) => a - b);
  const elapsedMs = slices.reduce((sum, slice) => sum + slice.elapsedMs, 0);
  return {
    clients: CLIENTS,
    calls: sorted.length,
    errors: slices.reduce((sum, slice) => sum + slice.errors, 0),
    callsPerSecond: Math.round((sorted.length / elapsedMs) * 1000),
    p50Ms: round(percentile(sorted, 0.5), 3),
    p99Ms: round(percentile(sorted, 0.99), 3),
  };
}

/** The platform with one connector to server-everything, granted to a group of the bench user, and that user's virtual key. */
async function startGateway(everythingUrl: string, dataDir: string): Promise<{ app: PlatformApp; url: string; key: string }> {
  const config = parsePlatformConfig({ auth: { mode: 'anonymous' }, database: { dataDir } });
  const app = await buildPlatformApp({ config, logger: silentLogger });
  app.start();
  const call = async <T>(method: 'POST' | 'PUT', url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> => {
    const response = await app.http.inject({ method, url, payload: body as object, headers });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${String(response.statusCode)} ${response.body}`);
    return JSON.parse(response.body) as T;
  };
  const { secret, key } = await call<{ secret: string; key: { owner_ref: string } }>('POST', '/v1/me/keys', { name: 'bench' });
  const group = await call<{ id: string }>('POST', '/v1/groups', { name: 'bench' });
  await call('POST', `/v1/groups/${group.id}/users/${key.owner_ref}`, undefined);
  const connector = await call<{ id: string; status: string }>('POST', '/v1/gateways/default/connectors', {
    name: 'Everything',
    endpoint: everythingUrl,
    transport: 'streamable-http',
    auth: { type: 'none' },
    allow_private_ips: true,
  });
  if (connector.status !== 'verified') throw new Error(`the connector's endpoint check says ${connector.status}`);
  await call('PUT', `/v1/connectors/${connector.id}/policy/groups`, { group_ids: [group.id] }, { 'if-match': '*' });
  await app.changes.check();
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.http.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${String(port)}/connector-gateway/v1/gateways/default/mcp`, key: secret };
}

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  try {
    const everything = await startEverything('streamableHttp');
    stops.push(everything.stop);
    const everythingUrl = `http://127.0.0.1:${String(everything.port)}/mcp`;
    const options: HostOptions = { kind: 'reverse', url: everythingUrl };
    const proxy = await startWorker<HostReady, never, never>(ROOT, HOST, options, 'the runtime proxy');
    stops.unshift(proxy.stop);
    const dataDir = await mkdtemp(join(tmpdir(), 'toolyard-bench-gateway-'));
    stops.push(() => rm(dataDir, { recursive: true, force: true }));
    const gateway = await startGateway(everythingUrl, dataDir);
    stops.unshift(() => gateway.app.close());

    const targets: Record<Way, ClientTarget> = {
      direct: { kind: 'http', url: everythingUrl },
      runtimeProxy: { kind: 'http', url: proxy.ready.url },
      connectorGateway: { kind: 'http', url: gateway.url, headers: { 'x-api-key': gateway.key }, tool: 'everything__echo' },
    };
    const workers = new Map<Way, WorkerProcess<ClientReady, ClientRequest, ClientSlice>>();
    for (const way of WAYS) {
      const options: ClientOptions = { target: targets[way], clients: { sequential: 0, concurrent: CLIENTS } };
      const worker = await startWorker<ClientReady, ClientRequest, ClientSlice>(ROOT, CLIENT, options, `the ${LABELS[way]} clients`);
      stops.unshift(worker.stop);
      workers.set(way, worker);
    }
    const ask = (way: Way, request: ClientRequest) => {
      const worker = workers.get(way);
      if (!worker) throw new Error(`no clients for ${way}`);
      return worker.ask(request);
    };
    log(`${String(CLIENTS)} clients per way, ${String(WARMUP_CALLS)} warm-up calls, then ${String(CALLS)} calls each in ${String(SLICES)} slices`);
    for (const way of WAYS) await ask(way, { group: 'concurrent', warmupCalls: WARMUP_CALLS, calls: 0 });
    const slices = new Map<Way, ClientSlice[]>(WAYS.map((way) => [way, []]));
    // the CPU of this process (the platform's HTTP and database threads) while the gateway's slices ran
    let gatewayCpuMicros = 0;
    // the same split by thread where /proc tells it: the HTTP thread, and the rest (database thread, V8's own threads)
    const gatewayThreadsMs = { main: 0, other: 0 };
    for (let slice = 0; slice < SLICES; slice++) {
      const order = [...WAYS.slice(slice % WAYS.length), ...WAYS.slice(0, slice % WAYS.length)];
      for (const way of order) {
        const isGateway = way === 'connectorGateway';
        const before = process.cpuUsage();
        const ticksBefore = isGateway ? threadTicks() : undefined;
        slices.get(way)?.push(await ask(way, { group: 'concurrent', warmupCalls: SLICE_WARMUP, calls: CALLS / SLICES }));
        if (isGateway) {
          const used = process.cpuUsage(before);
          gatewayCpuMicros += used.user + used.system;
          const threads = threadCpuSince(ticksBefore, threadTicks());
          if (threads) {
            gatewayThreadsMs.main += threads.mainMs;
            gatewayThreadsMs.other += threads.otherMs;
          }
        }
      }
    }
    const ways = Object.fromEntries(WAYS.map((way) => [way, summarize(slices.get(way) ?? [])])) as Record<Way, ReturnType<typeof summarize>>;
    const ratio = round(ways.connectorGateway.callsPerSecond / ways.direct.callsPerSecond, 3);
    const gatewayCalls = SLICES * CLIENTS * (CALLS / SLICES + SLICE_WARMUP);
    const gatewayCpuMsPerCall = round(gatewayCpuMicros / 1000 / gatewayCalls, 3);
    const gatewayCpuMsPerCallByThread = gatewayThreadsMs.main + gatewayThreadsMs.other > 0
      ? { httpThread: round(gatewayThreadsMs.main / gatewayCalls, 3), otherThreads: round(gatewayThreadsMs.other / gatewayCalls, 3) }
      : undefined;
    const results = {
      benchmark: 'connector-gateway',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg().map((value) => round(value, 2)), node: process.version },
      method: `${String(CLIENTS)} concurrent SDK clients (StreamableHTTPClientTransport) per way, tools/call echo, ${String(CALLS)} timed calls each in ${String(SLICES)} rotating slices`,
      ways,
      ratios: { connectorGatewayToDirect: ratio, runtimeProxyToDirect: round(ways.runtimeProxy.callsPerSecond / ways.direct.callsPerSecond, 3) },
      gatewayCpuMsPerCall,
      ...(gatewayCpuMsPerCallByThread && { gatewayCpuMsPerCallByThread }),
      p50AddedMs: { runtimeProxy: round(ways.runtimeProxy.p50Ms - ways.direct.p50Ms, 3), connectorGateway: round(ways.connectorGateway.p50Ms - ways.direct.p50Ms, 3) },
      targets: { connectorGatewayToDirect: { target: `>= ${String(TARGET_RATIO)}`, value: ratio, met: ratio >= TARGET_RATIO } },
    };
    for (const way of WAYS) {
      const figures = ways[way];
      process.stdout.write(`${LABELS[way].padEnd(18)} ${String(figures.callsPerSecond).padStart(6)} calls/s  p50 ${figures.p50Ms.toFixed(2)} ms  p99 ${figures.p99Ms.toFixed(2)} ms  errors ${String(figures.errors)}\n`);
    }
    process.stdout.write(`connector gateway / direct: ${ratio.toFixed(2)} (target >= ${String(TARGET_RATIO)}: ${results.targets.connectorGatewayToDirect.met ? 'met' : 'NOT met'}); p50 added: runtime proxy ${results.p50AddedMs.runtimeProxy.toFixed(2)} ms, connector gateway ${results.p50AddedMs.connectorGateway.toFixed(2)} ms; the gateway's process used ${gatewayCpuMsPerCall.toFixed(2)} ms of CPU a call${gatewayCpuMsPerCallByThread ? ` (HTTP thread ${gatewayCpuMsPerCallByThread.httpThread.toFixed(2)}, database and V8 threads ${gatewayCpuMsPerCallByThread.otherThreads.toFixed(2)})` : ''}\n`);
    await mkdir(new URL('./results/', import.meta.url).pathname, { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    log(`wrote ${RESULTS}`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

await main();
