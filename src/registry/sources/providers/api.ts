import { addServers, CatalogFormatError, type ParsedCatalog } from './catalog-document.js';
import { fetchText, type NetworkAccess } from './http-fetch.js';
import type { Fetch } from '../../../core/net/address-guard.js';
import { sha256, type SourceProvider } from './provider.js';
import { createHash } from 'node:crypto';
import { isJsonObject } from '../../../core/json-object.js';

export interface ApiSourceOptions {
  endpoint: string;
  timeoutMs: number;
  pageSize?: number;
  /** Backoff before a retry; tests shorten it. */
  backoffMs?: number;
  maxPages?: number;
  /** Where requests may go; absent for the configuration's own sources. */
  access?: NetworkAccess | undefined;
  fetch?: Fetch | undefined;
}

/** Accepts a base URL with or without the API version and returns the list URL. */
export function serversUrl(endpoint: string): URL {
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = /\/v0(\.1)?$/.test(path) ? `${path}/servers` : /\/v0(\.1)?\/servers$/.test(path) ? path : `${path}/v0.1/servers`;
  return url;
}

/** Crawls an upstream MCP Registry API page by page, following `metadata.nextCursor`. */
export function createApiSource(options: ApiSourceOptions): SourceProvider {
  const pageSize = options.pageSize ?? 100;
  const maxPages = options.maxPages ?? 10_000;
  return {
    async fetch({ signal }) {
      const parsed: ParsedCatalog = { records: [], skipped: [] };
      const fingerprint = createHash('sha256');
      const seenCursors = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page >= maxPages) throw new CatalogFormatError(`stopped after ${maxPages} pages: the upstream keeps returning a next cursor`);
        const url = serversUrl(options.endpoint);
        url.searchParams.set('limit', String(pageSize));
        if (cursor !== undefined) url.searchParams.set('cursor', cursor);
        const body = await fetchText(url.toString(), {
          timeoutMs: options.timeoutMs,
          signal,
          access: options.access,
          fetch: options.fetch,
          ...(options.backoffMs !== undefined && { backoffMs: options.backoffMs }),
        });
        fingerprint.update(sha256(body));
        const document = parsePage(body, url);
        addServers(parsed, document.servers, `page ${page + 1} servers`);
        cursor = document.nextCursor;
        if (cursor === undefined) break;
        if (seenCursors.has(cursor)) throw new CatalogFormatError(`the upstream returned the cursor ${JSON.stringify(cursor)} twice`);
        seenCursors.add(cursor);
      }
      return { fingerprint: fingerprint.digest('hex'), parse: () => parsed };
    },
  };
}

function parsePage(body: string, url: URL): { servers: unknown[]; nextCursor: string | undefined } {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    throw new CatalogFormatError(`${url.origin}${url.pathname} did not answer with JSON`);
  }
  // `null`, a number or an array is JSON too, and must fail as a format problem, not as a TypeError
  const servers = isJsonObject(document) ? document.servers : undefined;
  if (!isJsonObject(document) || !Array.isArray(servers)) throw new CatalogFormatError(`${url.origin}${url.pathname} did not answer with {servers: [...]}`);
  const metadata = document.metadata;
  const next = isJsonObject(metadata) ? metadata.nextCursor : undefined;
  return { servers, nextCursor: typeof next === 'string' && next !== '' ? next : undefined };
}
