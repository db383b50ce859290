import { readFile } from 'node:fs/promises';
import type { JWK } from 'jose';
import type { JwksSource } from './envelope.js';

/** How documents are fetched (the runtime passes its guarded fetch; the CLI the global one). */
export type FetchLike = (url: string, init?: { headers?: Record<string, string> }) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

export async function readLocation(location: string, fetchText: FetchLike, headers: Record<string, string> = {}): Promise<string> {
  if (!/^https?:\/\//i.test(location)) return readFile(location, 'utf8');
  const response = await fetchText(location, { headers });
  if (!response.ok) throw new Error(`${location} answered ${response.status}`);
  return response.text();
}

/** A JWKS read from a file or a URL, cached; `keys(true)` reads it again (an unknown kid after a rotation). */
export function createJwksSource(location: string, fetchText: FetchLike): JwksSource {
  let cached: JWK[] | undefined;
  return {
    async keys(refresh) {
      if (cached && !refresh) return cached;
      const document = JSON.parse(await readLocation(location, fetchText, { accept: 'application/json' })) as { keys?: unknown };
      if (!Array.isArray(document.keys)) throw new Error(`${location} is not a JWKS (no keys array)`);
      cached = document.keys as JWK[];
      return cached;
    },
  };
}

/** The JWKS of a platform, from its client configuration discovery. */
export async function discoverJwksUri(platformUrl: string, fetchText: FetchLike): Promise<string> {
  const origin = new URL(platformUrl).origin;
  const discovery = JSON.parse(await readLocation(`${origin}/.well-known/toolyard-configuration`, fetchText, { accept: 'application/json' })) as { jwks_uri?: unknown };
  if (typeof discovery.jwks_uri !== 'string') throw new Error(`${origin}/.well-known/toolyard-configuration names no jwks_uri`);
  return discovery.jwks_uri;
}
