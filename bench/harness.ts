/** What the HTTP benchmarks share: the load generator in its own process, slices combined, percentiles, PostgreSQL. */
import { spawn } from 'node:child_process';
import pg from 'pg';
import type { LoadOptions, LoadResult } from './load-worker.js';

const ROOT = new URL('..', import.meta.url).pathname;
const LOAD_WORKER = new URL('./load-worker.ts', import.meta.url).pathname;

export const BENCH_ADMIN_URL = process.env.TOOLYARD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const log = (message: string) => process.stderr.write(`${message}\n`);

/** Runs autocannon in a process of its own, so it never shares an event loop with the server under test. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD_WORKER, JSON.stringify(options)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') reject(new Error(`load generator exited with ${code ?? 'a signal'}: ${output}`));
      else resolve(JSON.parse(line) as LoadResult);
    });
  });
}

/**
 * Every slice starts a fresh load generator, whose own warm-up (module loading, then its JIT) competes with
 * the way under test for the machine's two cores, and more so the more CPU the way needs: over 1-s slices
 * the LLM gateway's p50 came out 5 to 11 ms above the floor's, and 0 to 3 ms once each slice had first run
 * 1 s uncounted. So every slice does, the first one (the server's own JIT) longer.
 */
export const sliceWarmupSeconds = (slice: number): number => (slice === 0 ? 2 : 1);

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** One way's slices as one run: requests over time, the slowest p99, the median p50. */
export function combineSlices(runs: LoadResult[]) {
  const seconds = runs.reduce((sum, run) => sum + run.requests / run.requestsPerSecond, 0);
  const requestsTotal = runs.reduce((sum, run) => sum + run.requests, 0);
  return {
    requestsPerSecond: requestsTotal / seconds,
    requests: requestsTotal,
    p50Ms: percentile(runs.map((run) => run.p50Ms), 50),
    p99Ms: Math.max(...runs.map((run) => run.p99Ms)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    perSlice: runs.map((run) => Math.round(run.requestsPerSecond)),
  };
}

/** One statement on the administrator connection (databases are created and dropped by the benchmarks). */
export async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
