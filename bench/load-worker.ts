/**
 * The load generator, run in its own process by bench/registry.ts so that it never shares an event
 * loop with the server under test: `node --import tsx bench/load-worker.ts '<json options>'`.
 * It runs a warm-up, then the measured run, and prints one JSON line with the measured figures.
 */
import autocannon from 'autocannon';

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

function run(options: LoadOptions, durationSeconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.origin,
    connections: options.connections,
    duration: durationSeconds,
    requests: options.requests.map(({ path, headers, method, body }) => ({ method: method ?? 'GET', path, ...(headers && { headers }), ...(body !== undefined && { body }) })),
  });
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
  if (options.warmupSeconds > 0) await run(options, options.warmupSeconds);
  const result = await run(options, options.durationSeconds);
  const measured: LoadResult = {
    // autocannon counts only 2xx latencies; the rate counts every response
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p90Ms: result.latency.p90,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytesPerSecond: result.throughput.average,
  };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

await main();
