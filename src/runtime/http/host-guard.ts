import type { HttpApp } from '../../core/http/app.js';
import { createRebindingCheck } from '../../core/net/rebinding.js';

export interface HostGuardOptions {
  /** The host the server is bound to (`127.0.0.1`, `::1`, `192.0.2.10`, `0.0.0.0`). */
  boundHost: string;
  /**
   * A bearer token guards every route: a page rebinding a name to this server cannot send it, so
   * the bound host is admitted too, and any host when bound to every interface.
   */
  tokenConfigured: boolean;
}

/**
 * Refuses DNS rebinding: a web page on evil.example that re-points its name to 127.0.0.1 still sends
 * `Host: evil.example` and `Origin: http://evil.example`, so both must name this machine's loopback
 * (or the address the server is bound to) before any route runs.
 */
export function registerHostGuard(app: HttpApp, options: HostGuardOptions): void {
  const refusalOf = createRebindingCheck({ boundHost: options.boundHost, anyHostOnWildcard: options.tokenConfigured, sameHostOrigins: false });
  app.addHook('onRequest', (request, reply, done) => {
    const refusal = refusalOf(request.headers);
    if (refusal !== undefined) {
      void reply.code(403).send({ error: refusal });
      return;
    }
    done();
  });
}
