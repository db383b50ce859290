import { redact, SourceFetchError } from './provider.js';

export interface HttpFetchOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Attempts for 5xx answers, time-outs and network failures (4xx never retries). */
  attempts?: number;
  /** First backoff delay; it doubles after each failed attempt. */
  backoffMs?: number;
  headers?: Record<string, string>;
}

/** GET with a per-request time-out and retries with exponential backoff on transient failures. */
export async function fetchText(url: string, options: HttpFetchOptions): Promise<string> {
  const attempts = options.attempts ?? 4;
  let delay = options.backoffMs ?? 500;
  let lastProblem = '';
  // a URL may carry credentials (`https://user:token@host`); messages end up in syncStatus
  const shown = redact(url);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.signal.throwIfAborted();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const response = await fetch(url, {
        signal: AbortSignal.any([options.signal, timeout]),
        headers: { accept: 'application/json', ...options.headers },
        redirect: 'follow',
      });
      const body = await response.text();
      if (response.ok) return body;
      lastProblem = `${shown} answered HTTP ${response.status}`;
      if (response.status < 500 && response.status !== 429) throw new SourceFetchError(lastProblem);
    } catch (error) {
      if (error instanceof SourceFetchError) throw error;
      if (options.signal.aborted) throw options.signal.reason;
      lastProblem = timeout.aborted
        ? `${shown} did not answer within ${options.timeoutMs / 1000}s`
        : `${shown} could not be reached (${redact(describeNetworkError(error))})`;
    }
    if (attempt < attempts) {
      await sleep(delay * (0.5 + Math.random()), options.signal);
      delay *= 2;
    }
  }
  throw new SourceFetchError(`${lastProblem} after ${attempts} attempts`);
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
