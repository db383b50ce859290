import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { InvalidInputError } from '../../core/errors.js';
import { BadGatewayError, GatewayTimeoutError } from './errors.js';

export type Fetch = typeof undiciFetch;

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

/**
 * Addresses a catalog URL must not reach by default: a URL pasted from elsewhere should not turn the
 * runtime into a probe of the local machine, the LAN or a cloud metadata service.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return PRIVATE.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

class PrivateAddressError extends InvalidInputError {}

const refusal = (host: string, address: string) =>
  new PrivateAddressError(`${host} resolves to the private or loopback address ${address}; set allow_private_ip to use it`);

/** Checked when the socket connects, so a DNS answer that changes after a check cannot slip through. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    const blocked = error ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
    const failure = error ?? (blocked && refusal(hostname, blocked.address));
    if (failure) {
      callback(failure, '', 0);
      return;
    }
    if (options.all === true) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
  });
};

function checkUrl(raw: string, allowPrivateIp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`"${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInputError(`${url.protocol} URLs are not supported; use http or https`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivateIp && (isPrivateAddress(host) || host === 'localhost' || host.endsWith('.localhost'))) throw refusal(url.hostname, host);
  return url;
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
  const fetch = options.fetch ?? undiciFetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const guarded = new Agent({ connect: { lookup: guardedLookup } });
  const open = new Agent();

  return async (raw, { allowPrivateIp, missingIsEmpty = false }) => {
    const signal = AbortSignal.timeout(timeoutMs);
    let url = checkUrl(raw, allowPrivateIp);
    try {
      for (let hop = 0; ; hop++) {
        const response = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json' }, dispatcher: allowPrivateIp ? open : guarded });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location !== null) {
          await response.body?.cancel();
          if (hop >= MAX_REDIRECTS) throw new BadGatewayError(`${url.host} redirected more than ${String(MAX_REDIRECTS)} times`);
          url = checkUrl(new URL(location, url).href, allowPrivateIp);
          continue;
        }
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
