import type { HttpApp } from '../../core/http/app.js';

export interface HostGuardOptions {
  /** The host the server is bound to (`127.0.0.1`, `::1`, `192.0.2.10`, `0.0.0.0`). */
  boundHost: string;
  /**
   * A bearer token guards every route: a page rebinding a name to this server cannot send it, so
   * the bound host is admitted too, and any host when bound to every interface.
   */
  tokenConfigured: boolean;
}

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

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
  } catch {
    return false;
  }
}

/**
 * Refuses DNS rebinding: a web page on evil.example that re-points its name to 127.0.0.1 still sends
 * `Host: evil.example` and `Origin: http://evil.example`, so both must name this machine's loopback
 * (or the address the server is bound to) before any route runs.
 */
export function registerHostGuard(app: HttpApp, options: HostGuardOptions): void {
  const bound = hostLiteral(options.boundHost);
  const admitted = new Set([...LOOPBACK_NAMES, bound]);
  const anyHost = options.tokenConfigured && WILDCARDS.has(bound);
  app.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host;
    if (host === undefined || (!anyHost && !admitted.has(hostOf(host)))) {
      void reply.code(403).send({ error: 'the Host header must name this machine (localhost, 127.0.0.1 or [::1])' });
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      void reply.code(403).send({ error: 'requests from web pages are accepted only from a loopback origin (http://localhost, http://127.0.0.1 or http://[::1])' });
      return;
    }
    done();
  });
}
