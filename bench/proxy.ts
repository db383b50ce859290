/**
 * `npm run bench:proxy` (tsx bench/proxy.ts)
 *
 * `tools/call` round trips of server-everything's `echo` tool, one real stdio MCP server
 * (`node <server-everything>/dist/index.js stdio`), reached four ways in one run on this machine:
 * - direct: the official SDK Client over StdioClientTransport, which spawns the server itself (so the 8
 *   concurrent clients are 8 server processes): what a client pays with no HTTP at all;
 * - floor: a bare node:http server (bench/proxy-floor.ts) answering the same JSON-RPC messages with no
 *   MCP work, reached with the SDK's StreamableHTTPClientTransport: the cost of HTTP itself, the best
 *   any stdio-to-HTTP proxy could do;
 * - mcp-proxy: the `mcp-proxy` CLI (the most used TypeScript stdio-to-HTTP proxy on npm) in front of the
 *   server (bench/proxy-mcp-proxy.ts), the same SDK client: the peer to beat;
 * - toolyard: Toolyard's stdio proxy with a pass-through policy in front of the server, hosted in a
 *   process of its own (bench/proxy-host.ts), the same SDK client.
 * Each way gets 2,000 sequential calls from one client after 200 warm-up calls, and 500 calls from each
 * of 8 concurrent clients (each its own SDK client and session) after 25 warm-up calls each.
 * The clients of each way run in a process of their own (bench/proxy-client.ts), never on the event
 * loop of what they measure. The calls are made in 10 slices and the ways take turns slice by slice (in
 * a rotating order), so that load from elsewhere on the machine spreads over all four ways instead of
 * deciding a ratio. Prints calls/s, p50 and p99 per way and mode, Toolyard's ratios to the floor and to
 * mcp-proxy and its p50 above the floor against the targets, and the memory of the process hosting
 * Toolyard's proxy after the run; writes bench/results/proxy.json.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ClientOptions, ClientReady, ClientRequest, ClientSlice, ClientTarget, Group } from './proxy-client.js';
import type { HostMemory, HostOptions, HostReady, HostRequest } from './proxy-host.js';
import { startWorker, type WorkerProcess } from './proxy-ipc.js';
import { MCP_PROXY_FLAGS, startMcpProxy } from './proxy-mcp-proxy.js';
import { measureWorkloads, type WorkloadFigures } from './proxy-workload.js';

const ROOT = new URL('..', import.meta.url).pathname;
const RESULTS = new URL('./results/proxy.json', import.meta.url).pathname;
const CLIENT = new URL('./proxy-client.ts', import.meta.url).pathname;
const HOST = new URL('./proxy-host.ts', import.meta.url).pathname;
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const SERVER = { command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} };

type Mode = Group;
/** Calls per client. */
const MODES: Record<Mode, { clients: number; warmupCalls: number; calls: number }> = {
  sequential: { clients: 1, warmupCalls: 200, calls: 2_000 },
  concurrent: { clients: 8, warmupCalls: 25, calls: 500 },
};
const SLICES = 10;
/** Untimed calls per client before every slice: the way's connections idled while the others ran. */
const SLICE_WARMUP = 3;
/** Toolyard's calls/s against the floor's and mcp-proxy's, per mode; the rest judge one call, a start and memory. */
const TARGETS = {
  ratios: { sequential: { floorRatio: 0.7, mcpProxyRatio: 3 }, concurrent: { floorRatio: 0.9, mcpProxyRatio: 2.5 } } satisfies Record<Mode, { floorRatio: number; mcpProxyRatio: number }>,
  p50OverFloorMs: 0.5,
  createToRunningMs: 3000,
  supervisorRssMiB: 80,
};

type Way = 'direct' | 'floor' | 'mcpProxy' | 'toolyard';
const WAY_LABELS: Record<Way, string> = { direct: 'direct', floor: 'HTTP floor', mcpProxy: 'mcp-proxy', toolyard: 'Toolyard' };
const WAYS = Object.keys(WAY_LABELS) as Way[];
const MODE_NAMES = Object.keys(MODES) as Mode[];

interface RunResult {
  clients: number;
  /** Timed calls of all clients. */
  calls: number;
  /** Calls that threw or did not echo their message back, warm-up included. */
  errors: number;
  elapsedMs: number;
  callsPerSecond: number;
  /** The slowest and the fastest slice, in calls/s: how much the machine moved under this way. */
  sliceCallsPerSecond: [number, number];
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
}

type WayResult = Record<Mode, RunResult>;

interface Ratios {
  /** The most Toolyard/mcp-proxy can be on this machine: a proxy cannot beat the floor. */
  floorToMcpProxy: number;
  toolyardToFloor: number;
  toolyardToMcpProxy: number;
  p50OverFloorMs: number;
}

type Targets = Record<string, { target: string; value: number; met: boolean }>;

const started = performance.now();

function log(message: string): void {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

const mib = (bytes: number | undefined): number | undefined => (bytes === undefined ? undefined : Math.round((bytes / 2 ** 20) * 10) / 10);
const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

function packageVersion(name: string): string {
  const text = readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

function summarize(clients: number, slices: ClientSlice[]): RunResult {
  const sorted = slices.flatMap((slice) => slice.latencies).sort((a, b) => a - b);
  const elapsedMs = sum(slices.map((slice) => slice.elapsedMs));
  const rates = slices.map((slice) => Math.round((slice.latencies.length / slice.elapsedMs) * 1000));
  return {
    clients,
    calls: sorted.length,
    errors: sum(slices.map((slice) => slice.errors)),
    elapsedMs: Math.round(elapsedMs),
    callsPerSecond: Math.round((sorted.length / elapsedMs) * 1000),
    sliceCallsPerSecond: [Math.min(...rates), Math.max(...rates)],
    p50Ms: round(percentile(sorted, 0.5), 3),
    p99Ms: round(percentile(sorted, 0.99), 3),
    meanMs: round(sum(sorted) / sorted.length, 3),
    maxMs: round(sorted.at(-1) ?? Number.NaN, 3),
  };
}

// ---------------------------------------------------------------------------------------------------
// the four ways

type ClientProcess = WorkerProcess<ClientReady, ClientRequest, ClientSlice>;

interface Measured {
  ways: Record<Way, WayResult>;
  factory: string;
  memory: {
    toolyardHost: { readyRssMiB: number | undefined; afterRssMiB: number | undefined; afterHeapUsedMiB: number | undefined };
    floorHost: { readyRssMiB: number | undefined; afterRssMiB: number | undefined };
    mcpProxy: { afterRssMiB: number | undefined };
  };
}

function startClients(way: Way, target: ClientTarget): Promise<ClientProcess> {
  const options: ClientOptions = { target, clients: { sequential: MODES.sequential.clients, concurrent: MODES.concurrent.clients } };
  return startWorker(ROOT, CLIENT, options, `the ${WAY_LABELS[way]} clients`);
}

async function measure(): Promise<Measured> {
  const stops: (() => Promise<void>)[] = [];
  try {
    const floorHost = await startWorker<HostReady, HostRequest, HostMemory>(ROOT, HOST, { kind: 'floor' } satisfies HostOptions, 'the floor host');
    stops.push(floorHost.stop);
    const mcpProxy = await startMcpProxy(ROOT, SERVER);
    stops.push(mcpProxy.stop);
    const toolyardHost = await startWorker<HostReady, HostRequest, HostMemory>(ROOT, HOST, { kind: 'toolyard', server: SERVER } satisfies HostOptions, "Toolyard's host");
    stops.push(toolyardHost.stop);
    log(`endpoints up (Toolyard = ${toolyardHost.ready.factory}); connecting ${MODES.sequential.clients + MODES.concurrent.clients} clients per way`);

    const targets: Record<Way, ClientTarget> = {
      direct: { kind: 'stdio', ...SERVER },
      floor: { kind: 'http', url: floorHost.ready.url },
      mcpProxy: { kind: 'http', url: mcpProxy.url },
      toolyard: { kind: 'http', url: toolyardHost.ready.url },
    };
    const clients = new Map<Way, ClientProcess>();
    for (const way of WAYS) {
      const worker = await startClients(way, targets[way]);
      // clients end their sessions before the endpoints go
      stops.unshift(worker.stop);
      clients.set(way, worker);
    }
    const clientsOf = (way: Way): ClientProcess => {
      const worker = clients.get(way);
      if (worker === undefined) throw new Error(`no clients for ${way}`);
      return worker;
    };

    const slices = new Map<string, ClientSlice[]>(WAYS.flatMap((way) => MODE_NAMES.map((mode) => [`${way}.${mode}`, []] as const)));
    for (const mode of MODE_NAMES) {
      const { clients: count, warmupCalls, calls } = MODES[mode];
      log(`${mode}: ${count} client${count === 1 ? '' : 's'} per way, ${warmupCalls} warm-up calls, then ${calls} calls each in ${SLICES} slices`);
      for (const way of WAYS) await clientsOf(way).ask({ group: mode, warmupCalls, calls: 0 });
      for (let slice = 0; slice < SLICES; slice++) {
        const order = [...WAYS.slice(slice % WAYS.length), ...WAYS.slice(0, slice % WAYS.length)];
        for (const way of order) {
          const result = await clientsOf(way).ask({ group: mode, warmupCalls: SLICE_WARMUP, calls: calls / SLICES });
          slices.get(`${way}.${mode}`)?.push(result);
        }
      }
    }
    const [toolyardAfter, floorAfter, mcpProxyAfter] = await Promise.all([toolyardHost.ask({ type: 'memory' }), floorHost.ask({ type: 'memory' }), mcpProxy.rssBytes()]);
    const result = (way: Way, mode: Mode): RunResult => summarize(MODES[mode].clients, slices.get(`${way}.${mode}`) ?? []);
    const wayResult = (way: Way): WayResult => ({ sequential: result(way, 'sequential'), concurrent: result(way, 'concurrent') });
    return {
      ways: { direct: wayResult('direct'), floor: wayResult('floor'), mcpProxy: wayResult('mcpProxy'), toolyard: wayResult('toolyard') },
      factory: toolyardHost.ready.factory,
      memory: {
        toolyardHost: { readyRssMiB: mib(toolyardHost.ready.memory.rssBytes), afterRssMiB: mib(toolyardAfter.rssBytes), afterHeapUsedMiB: mib(toolyardAfter.heapUsedBytes) },
        floorHost: { readyRssMiB: mib(floorHost.ready.memory.rssBytes), afterRssMiB: mib(floorAfter.rssBytes) },
        mcpProxy: { afterRssMiB: mib(mcpProxyAfter) },
      },
    };
  } finally {
    for (const stop of stops) await stop();
  }
}

// ---------------------------------------------------------------------------------------------------
// ratios, targets, report

function ratios(ways: Record<Way, WayResult>, mode: Mode): Ratios {
  const toolyard = ways.toolyard[mode];
  return {
    floorToMcpProxy: round(ways.floor[mode].callsPerSecond / ways.mcpProxy[mode].callsPerSecond, 2),
    toolyardToFloor: round(toolyard.callsPerSecond / ways.floor[mode].callsPerSecond, 3),
    toolyardToMcpProxy: round(toolyard.callsPerSecond / ways.mcpProxy[mode].callsPerSecond, 2),
    p50OverFloorMs: round(toolyard.p50Ms - ways.floor[mode].p50Ms, 3),
  };
}

function assess(byMode: Record<Mode, Ratios>, workloads: WorkloadFigures): Targets {
  const targets: Targets = {};
  for (const mode of MODE_NAMES) {
    const r = byMode[mode];
    const { floorRatio, mcpProxyRatio } = TARGETS.ratios[mode];
    targets[`${mode}.floorRatio`] = { target: `${mode}: Toolyard >= ${floorRatio * 100}% of the floor's calls/s`, value: r.toolyardToFloor, met: r.toolyardToFloor >= floorRatio };
    targets[`${mode}.mcpProxyRatio`] = { target: `${mode}: Toolyard >= ${mcpProxyRatio}x mcp-proxy's calls/s`, value: r.toolyardToMcpProxy, met: r.toolyardToMcpProxy >= mcpProxyRatio };
  }
  // With 8 calls in flight the median is mostly queueing, which the calls/s ratio already judges; the
  // latency a proxy adds to one call shows without it.
  const { p50OverFloorMs } = byMode.sequential;
  targets['sequential.p50OverFloor'] = { target: `sequential: Toolyard p50 - floor p50 <= ${TARGETS.p50OverFloorMs} ms`, value: p50OverFloorMs, met: p50OverFloorMs <= TARGETS.p50OverFloorMs };
  const { median } = workloads.createToRunningMs;
  targets['workload.createToRunning'] = { target: `create -> running (median of ${String(workloads.createToRunningMs.runs.length)}) <= ${String(TARGETS.createToRunningMs)} ms`, value: median, met: median <= TARGETS.createToRunningMs };
  targets['workload.supervisorRss'] = { target: `supervisor RSS after 2,000 calls <= ${String(TARGETS.supervisorRssMiB)} MiB`, value: workloads.supervisorRssMiB, met: workloads.supervisorRssMiB <= TARGETS.supervisorRssMiB };
  return targets;
}

function table(ways: Record<Way, WayResult>): string[] {
  const pad = (value: string, width: number) => value.padStart(width);
  const lines = [`  ${'way'.padEnd(12)}${'mode'.padEnd(12)}${pad('clients', 8)}${pad('calls/s', 9)}${pad('slices', 12)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('max ms', 9)}${pad('errors', 8)}`];
  for (const way of WAYS) {
    for (const mode of MODE_NAMES) {
      const row = ways[way][mode];
      lines.push(
        `  ${WAY_LABELS[way].padEnd(12)}${mode.padEnd(12)}${pad(String(row.clients), 8)}${pad(String(row.callsPerSecond), 9)}${pad(row.sliceCallsPerSecond.join('-'), 12)}` +
          `${pad(row.p50Ms.toFixed(2), 9)}${pad(row.p99Ms.toFixed(2), 9)}${pad(row.maxMs.toFixed(1), 9)}${pad(String(row.errors), 8)}`,
      );
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const measured = await measure();
  log('workloads: create -> running, supervisor memory');
  const workloads = await measureWorkloads();
  const loadAfter = loadavg()[0] ?? 0;
  const byMode: Record<Mode, Ratios> = { sequential: ratios(measured.ways, 'sequential'), concurrent: ratios(measured.ways, 'concurrent') };
  const targets = assess(byMode, workloads);
  const errors = sum(Object.values(measured.ways).map((way) => way.sequential.errors + way.concurrent.errors));
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage1m: { before: round(loadBefore, 2), after: round(loadAfter, 2) } },
    server: { package: '@modelcontextprotocol/server-everything', version: packageVersion('@modelcontextprotocol/server-everything'), tool: 'echo' },
    client: { package: '@modelcontextprotocol/sdk', version: packageVersion('@modelcontextprotocol/sdk') },
    mcpProxy: { version: packageVersion('mcp-proxy'), flags: MCP_PROXY_FLAGS },
    toolyard: { factory: measured.factory },
    runs: { ...MODES, slices: SLICES, sliceWarmupCalls: SLICE_WARMUP },
    ways: measured.ways,
    ratios: byMode,
    memory: measured.memory,
    workloads,
    targets,
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  const { toolyardHost, floorHost, mcpProxy } = measured.memory;
  const show = (value: number | undefined): string => (value === undefined ? '?' : `${String(value)} MiB`);
  const lines = [
    '',
    `tools/call echo, Toolyard = ${measured.factory}; calls/s over all slices, and of the slowest-fastest slice`,
    ...table(measured.ways),
    ...MODE_NAMES.map((mode) => {
      const r = byMode[mode];
      return `  ${mode}: Toolyard/floor ${(r.toolyardToFloor * 100).toFixed(1)}%, Toolyard/mcp-proxy ${r.toolyardToMcpProxy.toFixed(2)}x (floor/mcp-proxy ${r.floorToMcpProxy.toFixed(2)}x), Toolyard p50 - floor p50 ${r.p50OverFloorMs.toFixed(3)} ms`;
    }),
    `  memory after the run: Toolyard host RSS ${show(toolyardHost.afterRssMiB)} (${show(toolyardHost.readyRssMiB)} when ready, heap used ${show(toolyardHost.afterHeapUsedMiB)}); ` +
      `floor host RSS ${show(floorHost.afterRssMiB)}; mcp-proxy RSS ${show(mcpProxy.afterRssMiB)} (servers not counted)`,
    `  workloads: create -> running ${workloads.createToRunningMs.runs.map(String).join(', ')} ms; supervisor RSS ${String(workloads.supervisorRssMiB)} MiB`,
    ...Object.values(targets).map((target) => `  ${target.met ? 'MET   ' : 'MISSED'} ${target.target}: ${String(target.value)}`),
  ];
  if (Math.max(loadBefore, loadAfter) > cpus().length) {
    lines.push(`  the machine was busy (1-minute load average ${round(loadBefore, 1)} before, ${round(loadAfter, 1)} after, ${cpus().length} cores): expect noisy figures`);
  }
  if (errors > 0) lines.push(`  ${errors} calls failed or did not echo their message: the figures above are not comparable`);
  process.stdout.write(`${lines.join('\n')}\n`);
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${report.machine.cpus} x ${report.machine.model}, node ${report.machine.node}; ${report.totalSeconds} s; results written to bench/results/proxy.json\n`);
  if (errors > 0) process.exitCode = 1;
}

await main();
