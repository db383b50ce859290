/**
 * `npm run bench:start` (builds, then tsx bench/start.ts)
 *
 * Start-up time of the built `toolyard` command (dist/cli/main.js), in one run on this machine:
 * - floor: a bare `node -e` that starts a node:http server and answers /health, from spawn to the first
 *   200: what any Node server pays on this machine before doing anything of its own;
 * - registry: `toolyard registry serve` with the embedded database (PGlite) and the example catalog
 *   (examples/catalog.json: 6 server versions of 5 names, 3 skills, 1 plugin), from spawn to the first 200 of /health.
 *   The first start runs initdb in an empty data directory and syncs the catalog; every later start
 *   (the measured ones) opens that existing data directory, as a server does after its first day.
 *   After each /health the catalog is read back, so a start that serves fewer than its 6 server versions fails;
 *   besides wall time, the CPU time the server used until /health (Linux), which waits for a busy
 *   machine's cores do not inflate;
 * - CLI verbs that start no server: `toolyard list`, `--help` and `--version`, spawn to exit, with
 *   `node -e 0` as their floor.
 * The ways take turns run by run, so load from elsewhere on the machine spreads over all of them.
 * Prints medians and writes bench/results/start.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../src/core/net/free-port.js';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist/cli/main.js');
const CATALOG = join(ROOT, 'examples/catalog.json');
const RESULTS = new URL('./results/start.json', import.meta.url).pathname;
const SERVER_RUNS = 9;
const CLI_RUNS = 10;
const POLL_MS = 5;
const TIMEOUT_MS = 60_000;
const CATALOG_SERVERS = 6;
const TARGETS = { registryMs: 1_000, cliMs: 300 };

const started = performance.now();
/** Servers not stopped yet: a failed run must not leave them running. */
const live = new Set<ChildProcess>();
const log = (message: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${message}\n`);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

const round = (value: number) => Math.round(value);

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const CLOCK_TICKS = process.platform === 'linux' ? Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) : NaN;

/**
 * CPU milliseconds a process has used (all its threads: PGlite compiles WebAssembly off the main one),
 * from /proc on Linux: on a shared machine wall time also counts the waits for a core, CPU time does not.
 */
function cpuMsOf(pid: number | undefined): number {
  if (pid === undefined || Number.isNaN(CLOCK_TICKS)) return NaN;
  const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // utime and stime are fields 14 and 15 of stat; 12 and 13 once pid and name are cut off
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
}

/** Spawns a server and polls /health until it answers 200: milliseconds from spawn to that answer. */
async function timeToHealth(args: string[], port: number, env: NodeJS.ProcessEnv): Promise<{ ms: number; cpuMs: number; child: ChildProcess }> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  live.add(child);
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${String(child.exitCode)} before answering /health:\n${output}`);
    const answer = await get(port, '/health').catch(() => undefined);
    if (answer?.status === 200) return { ms: performance.now() - spawnedAt, cpuMs: cpuMsOf(child.pid), child };
    if (performance.now() - spawnedAt > TIMEOUT_MS) throw new Error(`${args.join(' ')} did not answer /health within ${String(TIMEOUT_MS)} ms:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  // SIGINT closes at once; SIGTERM would wait the shutdown delay
  child.kill('SIGINT');
  await exited(child);
  live.delete(child);
}

/** Milliseconds from spawn to exit of a command that must succeed. */
async function timeToExit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const code = await exited(child);
  const ms = performance.now() - spawnedAt;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${String(code)}: ${errors}`);
  return ms;
}

async function catalogServers(port: number): Promise<number> {
  const answer = await get(port, '/registry/default/v0.1/servers');
  if (answer.status !== 200) throw new Error(`the catalog answered ${String(answer.status)}: ${answer.body}`);
  return (JSON.parse(answer.body) as { servers: unknown[] }).servers.length;
}

async function writeConfig(dir: string, port: number): Promise<string> {
  const file = join(dir, 'registry.yaml');
  const yaml = [
    `server: { address: "127.0.0.1:${String(port)}" }`,
    `database: { dataDir: ${JSON.stringify(join(dir, 'data'))} }`,
    'sources:',
    `  - { name: examples, file: { path: ${JSON.stringify(CATALOG)} }, syncPolicy: { interval: 1m } }`,
    '  - { name: internal, managed: {} }',
    'registries:',
    '  - { name: default, sources: [internal, examples] }',
    'auth: { mode: anonymous }',
    'logging: { level: warn }',
  ].join('\n');
  await writeFile(file, `${yaml}\n`);
  return file;
}

const FLOOR_SERVER = (port: number) =>
  `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"status":"ok"}'); }).listen(${String(port)}, '127.0.0.1')`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'toolyard-bench-start-'));
  // the runtime's verbs read and write their XDG directories: a fresh, empty set, never the user's
  const xdg = Object.fromEntries(['CONFIG', 'STATE', 'DATA', 'CACHE'].map((kind) => [`XDG_${kind}_HOME`, join(dir, 'xdg', kind.toLowerCase())]));
  await Promise.all(Object.values(xdg).map((path) => mkdir(path, { recursive: true })));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, ...xdg };
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const port = await freePort();
    const config = await writeConfig(dir, port);
    const serve = [CLI, 'registry', 'serve', '--config', config];

    log('registry: first start (initdb in an empty data directory, then the first sync)');
    const first = await timeToHealth(serve, port, env);
    const syncedAt = performance.now();
    while ((await catalogServers(port)) < CATALOG_SERVERS) {
      if (performance.now() - syncedAt > TIMEOUT_MS) throw new Error('the example catalog was not synced');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stop(first.child);

    const floor: number[] = [];
    const registry: number[] = [];
    const floorCpu: number[] = [];
    const registryCpu: number[] = [];
    log(`floor and registry restarts: ${String(SERVER_RUNS)} runs each, taking turns`);
    for (let run = 0; run < SERVER_RUNS; run += 1) {
      const bare = await timeToHealth(['-e', FLOOR_SERVER(port)], port, env);
      floor.push(bare.ms);
      floorCpu.push(bare.cpuMs);
      await stop(bare.child);
      const restart = await timeToHealth(serve, port, env);
      registry.push(restart.ms);
      registryCpu.push(restart.cpuMs);
      const servers = await catalogServers(port);
      await stop(restart.child);
      if (servers !== CATALOG_SERVERS) throw new Error(`a restarted registry served ${String(servers)} server versions, not ${String(CATALOG_SERVERS)}`);
    }

    const verbs = { nodeFloor: ['-e', '0'], list: [CLI, 'list'], help: [CLI, '--help'], version: [CLI, '--version'] };
    const cli = Object.fromEntries(Object.keys(verbs).map((name) => [name, [] as number[]])) as Record<keyof typeof verbs, number[]>;
    log(`CLI verbs: ${String(CLI_RUNS)} runs each, taking turns`);
    for (let run = 0; run < CLI_RUNS; run += 1) {
      for (const [name, args] of Object.entries(verbs) as [keyof typeof verbs, string[]][]) cli[name].push(await timeToExit(args, env));
    }
    const loadAfter = loadavg()[0] ?? 0;

    const registryMs = median(registry);
    const floorMs = median(floor);
    const cliMs = Object.fromEntries(Object.entries(cli).map(([name, runs]) => [name, round(median(runs))])) as Record<keyof typeof verbs, number>;
    const slowestVerbMs = Math.max(cliMs.list, cliMs.help, cliMs.version);
    const packageJson = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage1m: { before: loadBefore, after: loadAfter } },
      toolyard: packageJson.version,
      catalog: { file: 'examples/catalog.json', serverVersions: CATALOG_SERVERS },
      database: 'pglite',
      registry: {
        firstStartMs: round(first.ms),
        restartMedianMs: round(registryMs),
        restartRunsMs: registry.map(round),
        restartCpuMedianMs: round(median(registryCpu)),
        overFloorMs: round(registryMs - floorMs),
      },
      floor: { medianMs: round(floorMs), runsMs: floor.map(round), cpuMedianMs: round(median(floorCpu)) },
      cli: { medianMs: cliMs, runsMs: Object.fromEntries(Object.entries(cli).map(([name, runs]) => [name, runs.map(round)])) },
      targets: {
        registryStartMs: { target: `<= ${String(TARGETS.registryMs)}`, value: round(registryMs), met: registryMs <= TARGETS.registryMs },
        cliVerbMs: { target: `<= ${String(TARGETS.cliMs)}`, value: slowestVerbMs, met: slowestVerbMs <= TARGETS.cliMs },
      },
    };
    await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);

    const row = (label: string, ms: number, note = '') => `${label.padEnd(40)} ${String(ms).padStart(6)} ms${note === '' ? '' : `  ${note}`}`;
    process.stdout.write(
      [
        '',
        row('floor: node:http answers /health', round(floorMs), `median of ${String(SERVER_RUNS)}`),
        row('registry serve -> /health (restart)', round(registryMs), `median of ${String(SERVER_RUNS)}; target <= ${String(TARGETS.registryMs)}; ${(registryMs / floorMs).toFixed(1)}x the floor`),
        row('  CPU used until /health (restart)', round(median(registryCpu)), `median; the floor's ${String(round(median(floorCpu)))} ms`),
        row('registry serve -> /health (first start)', round(first.ms), 'initdb and migrations in an empty data directory'),
        row('floor: node -e 0', cliMs.nodeFloor, `median of ${String(CLI_RUNS)}`),
        row('toolyard list', cliMs.list, `median of ${String(CLI_RUNS)}; target <= ${String(TARGETS.cliMs)}`),
        row('toolyard --help', cliMs.help, `median of ${String(CLI_RUNS)}`),
        row('toolyard --version', cliMs.version, `median of ${String(CLI_RUNS)}`),
        '',
        `${String(report.machine.cpus)} x ${report.machine.model}, node ${report.machine.node}, load ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)}; results written to bench/results/start.json`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const child of live) child.kill('SIGKILL');
    await Promise.all([...live].map(exited));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
