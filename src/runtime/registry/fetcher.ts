import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { InvalidInputError } from '../../core/errors.js';
import { createGuardedLookup, fetchFollowingRedirects, PrivateAddressError, privateHostLiteral, type Fetch } from '../../core/net/address-guard.js';
import { BadGatewayError, GatewayTimeoutError } from './errors.js';

export type { Fetch };

export interface FetchJsonOptions {
  /** Loopback and private-network addresses are refused unless the user allowed them for this registry. */
  allowPrivateIp: boolean;
  /** Answer undefined for a 404 instead of failing (optional endpoints such as skills on a plain MCP registry). */
  missingIsEmpty?: boolean;
}

/** GETs a JSON document; throws 400 (refused address), 502 (not JSON, error status) or 504 (unreachable). */
export type FetchJson = (url: string, options: FetchJsonOptions) => Promise<unknown>;

const MAX_REDIRECTS = 5;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

const describeRefusal = (host: string, address: string) => `${host} resolves to the private or loopback address ${address}; set allow_private_ip to use it`;

/** Checked when the socket connects, so a DNS answer that changes after a check cannot slip through. */
export const guardedLookup: LookupFunction = createGuardedLookup({ describe: describeRefusal });

function checkUrl(url: URL, allowPrivateIp: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${url.protocol} URLs are not supported; use http or https`);
  const literal = allowPrivateIp ? undefined : privateHostLiteral(url.hostname);
  if (literal !== undefined) throw new PrivateAddressError(describeRefusal(url.hostname, literal));
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new InvalidInputError(`"${raw}" is not a URL`);
  }
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 5; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
    if (typeof current !== 'object' || current === null) break;
  }
  return chain;
}

async function readLimited(body: AsyncIterable<Uint8Array>, maxBytes: number, url: URL): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new BadGatewayError(`${url.host} answered with more than ${String(maxBytes)} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The one way the registry code reaches the network: a timeout over the whole exchange, redirects
 * followed by hand so that every hop is checked, and failures sorted into the statuses users act on.
 */
export function createJsonFetcher(options: { fetch?: Fetch; timeoutMs?: number; maxBytes?: number } = {}): FetchJson {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  // undici loads on the first fetch: most CLI verbs build this fetcher and never reach a registry
  let client: Promise<{ fetch: Fetch; guarded: Agent; open: Agent }> | undefined;
  const connect = () =>
    (client ??= import('undici').then((undici) => ({
      fetch: options.fetch ?? undici.fetch,
      guarded: new undici.Agent({ connect: { lookup: guardedLookup } }),
      open: new undici.Agent(),
    })));

  return async (raw, { allowPrivateIp, missingIsEmpty = false }) => {
    const signal = AbortSignal.timeout(timeoutMs);
    let url = parseUrl(raw);
    try {
      const { fetch, guarded, open } = await connect();
      const answer = await fetchFollowingRedirects(url, {
        fetch,
        init: { signal, headers: { accept: 'application/json' }, dispatcher: allowPrivateIp ? open : guarded },
        maxRedirects: MAX_REDIRECTS,
        check: (next) => {
          url = next;
          checkUrl(next, allowPrivateIp);
        },
        tooManyRedirects: (last) => new BadGatewayError(`${last.host} redirected more than ${String(MAX_REDIRECTS)} times`),
      });
      const response = answer.response;
      if (response.status === 404 && missingIsEmpty) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new BadGatewayError(`${url.host} answered ${String(response.status)} for ${url.pathname}`);
      }
      const text = response.body ? await readLimited(response.body, maxBytes, url) : '';
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new BadGatewayError(`${url.host} did not answer with JSON for ${url.pathname}`);
      }
    } catch (error) {
      const chain = causes(error);
      const known = chain.find((entry) => entry instanceof InvalidInputError || entry instanceof BadGatewayError);
      if (known) throw known;
      if (chain.some((entry) => entry instanceof Error && entry.name === 'TimeoutError') || signal.aborted) {
        throw new GatewayTimeoutError(`${url.host} did not answer within ${String(timeoutMs)} ms`);
      }
      throw new GatewayTimeoutError(`${url.host} could not be reached`);
    }
  };
}
