import type { ProxyTarget } from './types.js';

export type HttpProxyTarget = Extract<ProxyTarget, { kind: 'http' }>;

/** Where an HTTP target lives and how paths on the proxy map to paths on it. */
export interface UpstreamAddress {
  readonly url: URL;
  readonly secure: boolean;
  /** For sockets: without the brackets of an IPv6 literal. */
  readonly hostname: string;
  readonly port: number;
  /** user:password from the URL, sent as Basic credentials. */
  readonly auth: string | undefined;
  /** The proxy path clients use for the target URL: /mcp or /sse by transport. */
  readonly entryPath: string;
  /** The path (and query) on the upstream for a request to the proxy. */
  upstreamPathOf: (url: URL) => string;
  /** A path on the proxy for an URL on the upstream's origin; undefined for any other origin. */
  proxyPathOf: (value: string) => string | undefined;
}

export function upstreamAddress(target: HttpProxyTarget): UpstreamAddress {
  const url = new URL(target.url);
  const secure = url.protocol === 'https:';
  const entryPath = target.transport === 'sse' ? '/sse' : '/mcp';
  return {
    url,
    secure,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    auth: url.username === '' ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
    entryPath,
    upstreamPathOf: (requested) => {
      if (requested.pathname !== entryPath) return `${requested.pathname}${requested.search}`;
      const query = new URLSearchParams(url.search);
      for (const [name, value] of requested.searchParams) query.append(name, value);
      const search = query.toString();
      return search === '' ? url.pathname : `${url.pathname}?${search}`;
    },
    proxyPathOf: (value) => {
      let resolved: URL;
      try {
        resolved = new URL(value, url);
      } catch {
        return undefined;
      }
      return resolved.origin === url.origin ? `${resolved.pathname}${resolved.search}` : undefined;
    },
  };
}
