/**
 * `npm run bench:registry -- --replicas N`: N registry server processes on one PostgreSQL database,
 * each loaded by its own load generator at the same time, next to one replica loaded alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { LoadOptions, LoadResult } from './load-worker.js';
import { generateSeedCatalog } from './seed-catalog.js';
import { freePort } from '../src/core/net/free-port.js';

export interface ReplicaBenchDependencies {
  runLoad(options: LoadOptions): Promise<LoadResult>;
  ensurePostgres(): Promise<string | undefined>;
  adminQuery(statement: string): Promise<void>;
  adminUrl: string;
  log(message: string): void;
}

const CLI = new URL('../src/cli/main.ts', import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;
const CONNECTIONS = 32;
const LIST_PATH = '/registry/default/v0.1/servers';


async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!(await probe().catch(() => false))) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function combine(results: LoadResult[]): LoadResult {
  const sum = (pick: (result: LoadResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const max = (pick: (result: LoadResult) => number) => Math.max(...results.map(pick));
  return {
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    p50Ms: max((r) => r.p50Ms),
    p90Ms: max((r) => r.p90Ms),
    p99Ms: max((r) => r.p99Ms),
    maxMs: max((r) => r.maxMs),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    bytesPerSecond: sum((r) => r.bytesPerSecond),
  };
}

export async function measureReplicas(count: number, durationSeconds: number, deps: ReplicaBenchDependencies): Promise<unknown> {
  const unreachable = await deps.ensurePostgres();
  if (unreachable !== undefined) throw new Error(`--replicas needs PostgreSQL: ${unreachable}`);
  const scratch = await mkdtemp(join(tmpdir(), 'toolyard-bench-replicas-'));
  const database = `toolyard_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await deps.adminQuery(`create database ${database}`);
  const url = new URL(deps.adminUrl);
  url.pathname = `/${database}`;
  const children: ChildProcess[] = [];
  try {
    deps.log(`[replicas] seeding a catalog of 10,000 servers x 3 versions for ${count} replicas on one PostgreSQL`);
    const seedPath = join(scratch, 'catalog.json');
    await writeFile(seedPath, generateSeedCatalog(10_000, 3).text);
    const config = join(scratch, 'registry.yaml');
    await writeFile(
      config,
      [
        `database: { url: "${url.toString()}", maxConnections: 4 }`,
        `sources: [{ name: seeded, file: { path: ${seedPath} }, syncPolicy: { interval: 1h } }]`,
        'registries: [{ name: default, sources: [seeded] }]',
        'auth: { mode: anonymous }',
        'logging: { level: warn }',
      ].join('\n'),
    );
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    for (const port of ports) {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'registry', 'serve', '--config', config, '--address', `127.0.0.1:${port}`], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
    }
    for (const port of ports) {
      await waitUntil(async () => {
        const response = await fetch(`http://127.0.0.1:${port}${LIST_PATH}?version=latest&limit=1&search=00009`);
        const body = (await response.json()) as { metadata?: { count?: number } };
        return response.ok && (body.metadata?.count ?? 0) > 0;
      }, `replica on port ${port} to serve the catalog`);
    }
    const load = (port: number, connections: number) =>
      deps.runLoad({ origin: `http://127.0.0.1:${port}`, requests: [{ path: LIST_PATH }], connections, durationSeconds, warmupSeconds: 2 });
    deps.log(`[replicas] one replica, ${CONNECTIONS} connections`);
    const single = await load(ports[0] ?? 0, CONNECTIONS);
    deps.log(`[replicas] ${count} replicas, ${CONNECTIONS} connections in all`);
    const all = combine(await Promise.all(ports.map((port) => load(port, Math.max(1, Math.round(CONNECTIONS / count))))));
    const result = {
      replicas: count,
      route: LIST_PATH,
      machine: { cpus: cpus().length },
      oneReplica: single,
      allReplicas: all,
      scaling: all.requestsPerSecond / single.requestsPerSecond,
      note: 'load generators and replicas share the same cores: on a machine with fewer cores than replicas plus generators the sum cannot scale',
    };
    process.stdout.write(
      `\nlist route, one replica: ${single.requestsPerSecond.toFixed(0)} req/s (p99 ${single.p99Ms} ms); ` +
        `${count} replicas on one PostgreSQL: ${all.requestsPerSecond.toFixed(0)} req/s (p99 ${all.p99Ms} ms, non-2xx ${all.non2xx}); ` +
        `scaling ${result.scaling.toFixed(2)}x on ${cpus().length} cores\n`,
    );
    return result;
  } finally {
    for (const child of children) child.kill('SIGINT');
    await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)))));
    await deps.adminQuery(`drop database if exists ${database} with (force)`).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  }
}
