import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { fetch as undiciFetch, RequestInit, Response } from 'undici';
import { InvalidInputError } from '../errors.js';

/**
 * Addresses a URL given by a caller must not reach unless an operator allowed it: a URL pasted from
 * elsewhere should not turn a server into a probe of its own machine, the LAN or a cloud metadata service.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(network, prefix, 'ipv6');

/** Loopback, RFC 1918, carrier-grade NAT, unique-local, link-local, multicast and reserved addresses. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return PRIVATE.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A URL host (`[::1]` included) that names a private address without asking DNS, or undefined. */
export function privateHostLiteral(hostname: string): string | undefined {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isPrivateAddress(host) || host === 'localhost' || host.endsWith('.localhost')) return host;
  return undefined;
}

/** A refused address: a 400 whose message says how to allow it. */
export class PrivateAddressError extends InvalidInputError {}

/** The message of a refusal: each service names its own setting that allows the address. */
export type DescribeRefusal = (host: string, address: string) => string;

/**
 * A DNS lookup for sockets that refuses private answers. It runs when the socket connects, so a DNS
 * answer that changes after an earlier check cannot slip through. `lookup` is replaceable for tests.
 */
export function createGuardedLookup(options: { describe: DescribeRefusal; lookup?: LookupFunction }): LookupFunction {
  const lookup = options.lookup ?? (dnsLookup);
  return (hostname, lookupOptions, callback) => {
    lookup(hostname, { ...lookupOptions, all: true }, (error, answer) => {
      const addresses = error ? [] : (answer as unknown as LookupAddress[]);
      const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
      const failure = error ?? (blocked && new PrivateAddressError(options.describe(hostname, blocked.address)));
      if (failure) {
        callback(failure, '', 0);
        return;
      }
      if (lookupOptions.all === true) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
    });
  };
}

/**
 * The private address a host name stands for (a literal, `localhost`, or any DNS answer), or undefined.
 * A name that does not resolve is not refused here: the connection is checked again when it is made.
 */
export async function findPrivateAddress(hostname: string, lookup: LookupFunction = dnsLookup): Promise<string | undefined> {
  const literal = privateHostLiteral(hostname);
  if (literal !== undefined) return literal;
  if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return undefined;
  return new Promise((resolve) => {
    lookup(hostname, { all: true }, (error, answer) => {
      const addresses = error ? [] : (answer as unknown as LookupAddress[]);
      resolve(addresses.find((entry) => isPrivateAddress(entry.address))?.address);
    });
  });
}

export type Fetch = typeof undiciFetch;

export interface RedirectOptions {
  fetch: Fetch;
  init: Omit<RequestInit, 'redirect'>;
  maxRedirects: number;
  /** Checks (and may refuse by throwing) the first URL and every redirect target before it is asked. */
  check(url: URL): void;
  tooManyRedirects(url: URL): Error;
}

/** Follows redirects by hand, so that every hop passes `check` before a request goes out. */
export async function fetchFollowingRedirects(start: URL, options: RedirectOptions): Promise<{ response: Response; url: URL }> {
  let url = start;
  options.check(url);
  for (let hop = 0; ; hop++) {
    const response = await options.fetch(url, { ...options.init, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return { response, url };
    await response.body?.cancel();
    if (hop >= options.maxRedirects) throw options.tooManyRedirects(url);
    url = new URL(location, url);
    options.check(url);
  }
}
