/**
 * DNS-rebinding checks for servers that listen on this machine: a web page on evil.example that
 * re-points its name to 127.0.0.1 still sends `Host: evil.example` and `Origin: http://evil.example`.
 */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARDS = new Set(['0.0.0.0', '[::]']);

/** `[::1]` for an IPv6 address, lower case, so a Host header and an address compare as text. */
export function hostLiteral(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/** The host part of a Host header (`localhost:8180` → `localhost`, `[::1]:8180` → `[::1]`). */
function hostOf(header: string): string {
  const lower = header.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.indexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? hostLiteral(url.hostname) : undefined;
  } catch {
    return undefined;
  }
}

export interface RebindingPolicy {
  /** The address the server listens on; it is admitted besides the loopback names. */
  boundHost: string;
  /** Any Host is admitted when bound to every interface (a token protects such a server). */
  anyHostOnWildcard: boolean;
  /** Web pages may call from an origin on the Host they asked, besides loopback origins. */
  sameHostOrigins: boolean;
}

/**
 * A check to run on every request: why it must be refused, or undefined when its Host and Origin
 * name this machine. The policy is read once, so a request costs two lookups.
 */
export function createRebindingCheck(policy: RebindingPolicy): (headers: { host?: string | undefined; origin?: string | undefined }) => string | undefined {
  const bound = hostLiteral(policy.boundHost);
  const anyHost = policy.anyHostOnWildcard && WILDCARDS.has(bound);
  return (headers) => {
    const host = headers.host === undefined ? undefined : hostOf(headers.host);
    if (host === undefined || (!anyHost && !LOOPBACK_NAMES.has(host) && host !== bound)) {
      return 'the Host header must name this machine (localhost, 127.0.0.1 or [::1])';
    }
    if (headers.origin === undefined) return undefined;
    const from = originHost(headers.origin);
    if (from !== undefined && (LOOPBACK_NAMES.has(from) || (policy.sameHostOrigins && from === host))) return undefined;
    return 'requests from web pages are accepted only from a loopback origin (http://localhost, http://127.0.0.1 or http://[::1])';
  };
}
