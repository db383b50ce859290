import type { Dispatcher, Response } from 'undici';
import { fetchFollowingRedirects, PrivateAddressError, type Fetch } from '../../../core/net/address-guard.js';
import { redact, SourceFetchError } from './provider.js';

/** Where a source's requests may go: each URL and redirect target is checked, and so is every DNS answer. */
export interface NetworkAccess {
  /** Why a URL may not be asked (the first one or a redirect target), or undefined. */
  urlProblem(url: URL): string | undefined;
  /** Connections made through it refuse private DNS answers. */
  dispatcher(): Promise<Dispatcher | undefined>;
}

const MAX_REDIRECTS = 5;

export interface HttpFetchOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Attempts for 5xx answers, time-outs and network failures (4xx never retries). */
  attempts?: number;
  /** First backoff delay; it doubles after each failed attempt. */
  backoffMs?: number;
  headers?: Record<string, string>;
  /** Largest body accepted; a bigger one fails the fetch instead of filling memory. */
  maxBytes?: number;
  /** Absent for sources of the configuration file, which may reach any address. */
  access?: NetworkAccess | undefined;
  /** Replaces the network (tests). */
  fetch?: Fetch | undefined;
}

/** A catalog larger than this is not a catalog; it protects the server from a hostile upstream. */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** GET with a per-request time-out and retries with exponential backoff on transient failures. */
export async function fetchText(url: string, options: HttpFetchOptions): Promise<string> {
  const attempts = options.attempts ?? 4;
  let delay = options.backoffMs ?? 500;
  let lastProblem = '';
  // a URL may carry credentials (`https://user:token@host`); messages end up in syncStatus
  const shown = redact(url);
  // undici loads with the first fetch, not with the server
  const fetch = options.fetch ?? (await import('undici')).fetch;
  const dispatcher = await options.access?.dispatcher();
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.signal.throwIfAborted();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const { response } = await fetchFollowingRedirects(new URL(url), {
        fetch,
        init: {
          signal: AbortSignal.any([options.signal, timeout]),
          headers: { accept: 'application/json', ...options.headers },
          ...(dispatcher && { dispatcher }),
        },
        maxRedirects: MAX_REDIRECTS,
        check: (target) => {
          const problem = options.access?.urlProblem(target);
          if (problem === undefined) return;
          throw new SourceFetchError(target.href === url ? `${shown}: ${problem}` : `${shown} redirected to ${redact(target.href)}, which was refused: ${problem}`);
        },
        tooManyRedirects: () => new SourceFetchError(`${shown} redirected more than ${MAX_REDIRECTS} times`),
      });
      const body = await readLimited(response, options.maxBytes ?? MAX_BODY_BYTES, shown);
      if (response.ok) return body;
      lastProblem = `${shown} answered HTTP ${response.status}`;
      if (response.status < 500 && response.status !== 429) throw new SourceFetchError(lastProblem);
    } catch (error) {
      if (error instanceof SourceFetchError) throw error;
      if (options.signal.aborted) throw options.signal.reason;
      // a DNS answer refused when connecting: a rule, not a transient failure, so no retry
      const refused = causes(error).find((entry) => entry instanceof PrivateAddressError);
      if (refused) throw new SourceFetchError(`${shown}: ${refused.message}`);
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

async function readLimited(response: Response, maxBytes: number, shown: string): Promise<string> {
  const tooLarge = () => new SourceFetchError(`${shown} answered with more than ${Math.round(maxBytes / 1024 / 1024)} MiB; that is not a catalog this server accepts`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    const chunk = read.value as Uint8Array;
    size += chunk.byteLength;
    if (size > maxBytes) {
      await reader?.cancel();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; typeof current === 'object' && current !== null && chain.length < 5; current = (current as { cause?: unknown }).cause) chain.push(current);
  return chain;
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
