import { createHash } from 'node:crypto';
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { closeServer, listenOn, rebindingGuard, sendJson } from './http-io.js';
import { errorResponse, INTERNAL_ERROR, INVALID_REQUEST, type JsonRpcId } from './jsonrpc.js';
import { createMcpMiddleware, type McpMiddleware } from './middleware.js';
import { upstreamRequestHeaders } from './reverse-proxy-headers.js';
import { createUpstreamHealth } from './reverse-proxy-health.js';
import { applyInbound, type PendingRewrites } from './reverse-proxy-messages.js';
import { createResponder, type Exchange, type SseSession } from './reverse-proxy-response.js';
import { upstreamAddress, type HttpProxyTarget } from './reverse-proxy-target.js';
import type { WorkloadProxy, WorkloadProxyOptions } from './types.js';

export type { HttpProxyTarget } from './reverse-proxy-target.js';

export type ReverseProxyOptions = WorkloadProxyOptions & {
  target: HttpProxyTarget;
  /** Defaults to the policy's middleware. */
  middleware?: McpMiddleware;
  clock?: () => number;
};

const HEALTH_FRESH_MS = 10_000;
const HEALTH_PROBE_MS = 2_000;

class ReadTimeoutError extends Error {}

/** The request as it goes upstream: the body is already read, so it can be sent again. */
interface Outgoing {
  path: string;
  body: Buffer | undefined;
  /** The id of a single JSON-RPC request, for the error answers the proxy makes itself. */
  id: JsonRpcId | null;
}

/** Reads a request body up to `limit` bytes; undefined once it grows past (the rest drains unread). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) resolve(undefined);
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A transparent reverse proxy in front of an MCP server reached by URL: a local HTTP server
 * process or a remote endpoint. Streams flow through as they come; only POSTed request bodies
 * and the answers the middleware rewrites are read whole.
 */
export function createReverseProxy(options: ReverseProxyOptions): WorkloadProxy {
  const { target, policy, log } = options;
  const clock = options.clock ?? Date.now;
  const middleware = options.middleware ?? createMcpMiddleware(policy, clock);
  const address = upstreamAddress(target);
  const host = address.url.host;
  const agent = address.secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = address.secure ? httpsRequest : httpRequest;
  const health = createUpstreamHealth({ ...address, clock, freshForMs: HEALTH_FRESH_MS, probeTimeoutMs: HEALTH_PROBE_MS });
  const sseSessions = new Map<string, SseSession>();
  const respond = createResponder({ address, middleware, sseSessions, log });

  /** The per-user rate-limit key: who the client says it is, else its session, else where it is. */
  const userOf = (req: IncomingMessage, sseSession: SseSession | undefined): string => {
    const authorization = req.headers.authorization;
    if (authorization !== undefined) return createHash('sha256').update(authorization).digest('hex');
    const session = req.headers['mcp-session-id'];
    if (typeof session === 'string' && session !== '') return session;
    return sseSession?.endpoint ?? req.socket.remoteAddress ?? 'unknown';
  };

  const fail = (res: ServerResponse, status: number, id: JsonRpcId | null, message: string): void =>
    sendJson(res, status, errorResponse(id, INTERNAL_ERROR, message));

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    const method = req.method ?? 'GET';
    const label = `${method} ${url.pathname}`;
    let body: Buffer | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const declared = Number(req.headers['content-length'] ?? 0);
      body = declared > policy.maxBodyBytes ? undefined : await readBody(req, policy.maxBodyBytes);
      if (body === undefined) {
        sendJson(res, 413, errorResponse(null, INVALID_REQUEST, 'request body too large'), { connection: 'close' });
        return;
      }
    }

    // A POST to a message endpoint the proxy announced belongs to that HTTP+SSE stream.
    const streamOfPost = sseSessions.get(`${url.pathname}${url.search}`);
    let rewrites: PendingRewrites = new Map();
    let id: JsonRpcId | null = null;
    if (method === 'POST' && body !== undefined) {
      const inbound = applyInbound(body, middleware, userOf(req, streamOfPost));
      if (!inbound.ok) {
        // An HTTP+SSE client reads answers from its stream and only the status of its POST.
        if (streamOfPost?.write !== undefined && inbound.status < 300) {
          streamOfPost.write(inbound.body);
          res.writeHead(202).end();
        } else {
          sendJson(res, inbound.status, inbound.body, inbound.headers);
        }
        return;
      }
      ({ body, rewrites, id } = inbound);
      if (streamOfPost !== undefined) {
        // Registered before the POST leaves: the answer may reach the stream before the 202.
        for (const [key, value] of rewrites) streamOfPost.pending.set(key, value);
        rewrites = new Map();
      }
    }
    let sseSession: SseSession | undefined;
    if (target.transport === 'sse' && method === 'GET' && url.pathname === address.entryPath) {
      sseSession = {
        pending: new Map(),
        write: (message) => {
          if (!res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        },
      };
    }

    dispatch(req, { label, res, rewrites, sseSession }, { path: address.upstreamPathOf(url), body, id }, true);
  };

  /**
   * Sends one request upstream. A kept-alive socket the upstream closed just as it was reused
   * fails before any answer; that request is sent once more on a fresh socket.
   */
  const dispatch = (req: IncomingMessage, exchange: Exchange, outgoing: Outgoing, mayRetry: boolean): void => {
    const { label, res } = exchange;
    const { body, id } = outgoing;
    let upReq: ClientRequest;
    try {
      upReq = send({
        protocol: address.url.protocol,
        hostname: address.hostname,
        port: address.port,
        method: req.method,
        path: outgoing.path,
        agent,
        ...(address.auth === undefined ? {} : { auth: address.auth }),
        headers: upstreamRequestHeaders(req.headers, host, target.headers ?? {}, body?.length),
      });
    } catch (err) {
      // Only a bad configured header or URL gets here; the error names it, never its value.
      log(`upstream ${host} request for ${label} could not be built (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      fail(res, 502, id, `upstream ${host} could not be reached`);
      return;
    }
    let answered = false;
    const timer = setTimeout(() => upReq.destroy(new ReadTimeoutError()), policy.readTimeoutMs);
    const clientGone = (): void => {
      clearTimeout(timer);
      if (!res.writableFinished) upReq.destroy();
    };
    res.on('close', clientGone);
    upReq.on('response', (upRes) => {
      answered = true;
      clearTimeout(timer);
      health.answered();
      respond(exchange, upRes);
    });
    upReq.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Either the client left, or the answer had begun and its stream reports the failure.
      if (res.destroyed || answered) return;
      if (mayRetry && upReq.reusedSocket && err.code === 'ECONNRESET') {
        res.off('close', clientGone);
        dispatch(req, exchange, outgoing, false);
        return;
      }
      if (err instanceof ReadTimeoutError) {
        log(`upstream ${host} sent no response headers within ${String(policy.readTimeoutMs)} ms for ${label}`);
        fail(res, 504, id, `upstream ${host} did not answer in time`);
        return;
      }
      health.unreachable();
      log(`upstream ${host} unreachable for ${label} (${err.code ?? err.name})`);
      fail(res, 502, id, `upstream ${host} is unreachable`);
    });
    upReq.end(body);
  };

  let refusesRebinding = rebindingGuard('127.0.0.1');
  const server = createServer((req, res) => {
    if (refusesRebinding(req, res)) return;
    if (req.method === 'GET' && (req.url ?? '/').split('?')[0] === '/health') {
      void health.check().then((up) => sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'down' }));
      return;
    }
    forward(req, res).catch(() => fail(res, 500, null, 'internal error'));
  });

  return {
    serverPid: undefined,
    // The supervisor restarts a local HTTP server process itself; a remote one is not ours.
    restartServer: () => undefined,
    listen: (port, listenHost) => {
      refusesRebinding = rebindingGuard(listenHost);
      return listenOn(server, port, listenHost, address.entryPath);
    },
    close: async () => {
      await closeServer(server);
      agent.destroy();
    },
  };
}
