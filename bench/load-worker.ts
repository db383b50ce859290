/**
 * The load generator, run in its own process by bench/registry.ts so that it never shares an event
 * loop with the server under test: `node --import tsx bench/load-worker.ts '<json options>'`.
 * It runs a warm-up, then the measured run, and prints one JSON line with the measured figures.
 * Latency percentiles are those of every 2xx response's own time, to the microsecond: autocannon's
 * histogram keeps whole milliseconds, too coarse for a target of 1 ms added to a floor's median.
 */
import autocannon from 'autocannon';
import { percentile } from './harness.js';

export interface LoadRequest {
  path: string;
  /** GET when absent. */
  method?: 'GET' | 'POST';
  body?: string;
  /** Headers of this request only (the authorization-on runs send a bearer token with every request). */
  headers?: Record<string, string>;
}

export interface LoadOptions {
  origin: string;
  /** Requests sent in turn by every connection. */
  requests: LoadRequest[];
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  bytesPerSecond: number;
}

/** Runs autocannon; `latencies` (when given) gets the time of every 2xx response, in milliseconds. */
function run(options: LoadOptions, durationSeconds: number, latencies?: number[]): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.origin,
        connections: options.connections,
        duration: durationSeconds,
        requests: options.requests.map(({ path, headers, method, body }) => ({ method: method ?? 'GET', path, ...(headers && { headers }), ...(body !== undefined && { body }) })),
      },
      (error: Error | null, result: autocannon.Result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      });
    }
  });
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
  if (options.warmupSeconds > 0) await run(options, options.warmupSeconds);
  const latencies: number[] = [];
  const result = await run(options, options.durationSeconds, latencies);
  const exact = (p: number) => Math.round(percentile(latencies, p) * 1000) / 1000;
  const measured: LoadResult = {
    // latencies of 2xx responses only, as autocannon's own; the rate counts every response
    requestsPerSecond: result.requests.average,
    p50Ms: exact(50),
    p90Ms: exact(90),
    p99Ms: exact(99),
    maxMs: exact(100),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytesPerSecond: result.throughput.average,
  };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

await main();
