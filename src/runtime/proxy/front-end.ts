import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRequest, type JsonRpcId, type JsonRpcMessage } from './jsonrpc.js';
import type { McpMiddleware } from './middleware.js';
import type { ReplySink, RouterSession, SessionRouter } from './session-router.js';

/** A client request the middleware answered itself; the front end delivers it. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: JsonRpcMessage;
}

/** What every client-facing transport shares: the router, the policy and the body limit. */
export interface FrontEndContext {
  readonly router: SessionRouter;
  readonly maxBodyBytes: number;
  readonly newSessionId: () => string;
  /** Runs a client request through the middleware and on to the upstream server. */
  readonly forward: (
    session: RouterSession,
    request: JsonRpcMessage & { id: JsonRpcId; method: string },
    sink: ReplySink,
  ) => Refusal | undefined;
}

/** One way for clients to reach the proxy (Streamable HTTP or HTTP+SSE). */
export interface FrontEnd {
  /** Where clients connect, e.g. /mcp. */
  readonly path: string;
  /** Serves the request when `path` is one of this front end's; false otherwise. */
  handle: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
}

export function createForward(router: SessionRouter, middleware: McpMiddleware): FrontEndContext['forward'] {
  return (session, request, sink) => {
    // The session is the rate-limit user: the stdio proxy has no authenticated identity.
    const verdict = middleware.inbound(request, session.id);
    if (!verdict.ok) return verdict;
    const message = verdict.message;
    if (!isRequest(message)) throw new Error('the middleware turned a request into something else');
    const method = request.method;
    const reply: ReplySink = middleware.rewrites(method)
      ? { notify: sink.notify, answer: (answer) => sink.answer(middleware.outbound(method, answer)) }
      : sink;
    router.request(session, message, reply);
    return undefined;
  };
}
