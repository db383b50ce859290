import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { JsonRpcMessage } from './jsonrpc.js';
import type { McpMiddleware } from './middleware.js';
import { clientResponseHeaders } from './reverse-proxy-headers.js';
import { rewriteAnswers, type PendingRewrites } from './reverse-proxy-messages.js';
import { createSseRewriter, type SseRewrite } from './reverse-proxy-sse.js';
import type { UpstreamAddress } from './reverse-proxy-target.js';

/**
 * An HTTP+SSE client stream. Its answers arrive on this stream, not on the POSTs that asked,
 * so the POSTs find it by the message endpoint the proxy announced to it.
 */
export interface SseSession {
  readonly pending: PendingRewrites;
  endpoint?: string;
  /** Adds a message of the proxy's own to the stream. */
  write?: (message: JsonRpcMessage) => void;
}

export interface ResponderOptions {
  address: UpstreamAddress;
  middleware: McpMiddleware;
  /** Message endpoint (path and query on the proxy) → its stream. */
  sseSessions: Map<string, SseSession>;
  log: (line: string) => void;
}

/** What the proxy knows about one forwarded request when its upstream answer arrives. */
export interface Exchange {
  /** Method and path, for log lines. */
  label: string;
  res: ServerResponse;
  /** Answers of this request the middleware rewrites. */
  rewrites: PendingRewrites;
  /** Set when this is an HTTP+SSE client opening its stream. */
  sseSession: SseSession | undefined;
}

export type Respond = (exchange: Exchange, upRes: IncomingMessage) => void;

/** Sends an upstream answer to the client: streamed as it comes, read whole only to rewrite JSON. */
export function createResponder(options: ResponderOptions): Respond {
  const { address, middleware, sseSessions, log } = options;
  const host = address.url.host;

  const answersOf =
    (pending: PendingRewrites): SseRewrite =>
    (event) =>
      event.type === 'message' && event.data !== undefined ? rewriteAnswers(event.data, pending, middleware) : undefined;

  const sessionStream =
    (session: SseSession, res: ServerResponse): SseRewrite =>
    (event) => {
      if (event.type !== 'endpoint' || event.data === undefined) return answersOf(session.pending)(event);
      const path = address.proxyPathOf(event.data);
      if (path === undefined) {
        // A client sent to another origin would talk to it directly, past every policy.
        log(`upstream ${host} announced a message endpoint on another origin; stream closed`);
        res.destroy();
        return null;
      }
      session.endpoint = path;
      sseSessions.set(path, session);
      return path;
    };

  return ({ label, res, rewrites, sseSession }, upRes) => {
    const contentType = upRes.headers['content-type'] ?? '';
    const eventStream = contentType.includes('text/event-stream');
    const rewriter =
      eventStream && sseSession !== undefined
        ? sessionStream(sseSession, res)
        : eventStream && rewrites.size > 0
          ? answersOf(rewrites)
          : undefined;
    const headers = clientResponseHeaders(upRes.headers, rewriter !== undefined);
    const location = typeof headers.location === 'string' ? address.proxyPathOf(headers.location) : undefined;
    if (location !== undefined) headers.location = location;
    const status = upRes.statusCode ?? 502;
    const broke = (err: NodeJS.ErrnoException | null): void => {
      // A client that went away is no upstream failure.
      if (err !== null && !res.destroyed) log(`upstream ${host} stream for ${label} broke (${err.code ?? err.name})`);
    };

    if (rewriter !== undefined) {
      res.writeHead(status, headers);
      res.flushHeaders();
      if (sseSession !== undefined) {
        res.on('close', () => {
          if (sseSession.endpoint !== undefined) sseSessions.delete(sseSession.endpoint);
        });
      }
      pipeline(upRes, createSseRewriter(rewriter), res, broke);
      return;
    }
    if (rewrites.size > 0 && contentType.includes('application/json')) {
      const chunks: Buffer[] = [];
      upRes.on('data', (chunk: Buffer) => chunks.push(chunk));
      upRes.on('error', (err) => {
        broke(err);
        res.destroy();
      });
      upRes.on('end', () => {
        const original = Buffer.concat(chunks);
        const rewritten = rewriteAnswers(original.toString('utf8'), rewrites, middleware);
        const body = rewritten === undefined ? original : Buffer.from(rewritten);
        res.writeHead(status, { ...headers, 'content-length': String(body.length) });
        res.end(body);
      });
      return;
    }
    res.writeHead(status, headers);
    if (eventStream) res.flushHeaders();
    pipeline(upRes, res, broke);
  };
}
