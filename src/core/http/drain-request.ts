import type { IncomingMessage } from 'node:http';

/**
 * Reads and discards the rest of a request body nobody read (a body on a route that takes none, a
 * body over the limit), up to `limitBytes` or `timeoutMs`. Node closes a connection it answers with
 * `connection: close` at once; bytes of the request still arriving then make the kernel reset the
 * connection, and the client loses the answer (the 413 with its `{error}`) before it reads it.
 * Undefined when the whole request was read (almost always: no promise on the hot path).
 */
export function drainRequest(request: IncomingMessage, options: { limitBytes: number; timeoutMs: number }): Promise<void> | undefined {
  if (request.complete || request.readableEnded || request.destroyed) return undefined;
  return new Promise((resolve) => {
    let discarded = 0;
    const done = () => {
      clearTimeout(timer);
      request.off('data', count).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > options.limitBytes) done();
    };
    const timer = setTimeout(done, options.timeoutMs);
    request.on('data', count).once('end', done).once('close', done).once('error', done);
    request.resume();
  });
}
