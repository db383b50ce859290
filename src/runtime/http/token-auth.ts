import { createHash, timingSafeEqual } from 'node:crypto';
import type { HttpApp } from '../../core/http/app.js';

const BEARER = /^Bearer +(\S+)$/i;

// equal-length digests, so the comparison takes the same time whatever the length of the guess
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Every route but `/health` needs `Authorization: Bearer <token>`; anything else is a 401. */
export function registerTokenAuth(app: HttpApp, token: string): void {
  const expected = digest(token);
  app.addHook('onRequest', (request, reply, done) => {
    if ((request.url.split('?')[0] ?? '') === '/health') {
      done();
      return;
    }
    const given = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      void reply.code(401).header('www-authenticate', 'Bearer realm="toolyard runtime"').send({ error: 'authentication required: send Authorization: Bearer <token>' });
      return;
    }
    done();
  });
}
