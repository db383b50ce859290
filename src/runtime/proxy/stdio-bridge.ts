import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  asJsonRpcMessage,
  errorResponse,
  INVALID_REQUEST,
  isRequest,
  PARSE_ERROR,
  type JsonRpcMessage,
} from './jsonrpc.js';
import { SessionRouter, type ReplySink, type RouterSession } from './session-router.js';
import { StdioChild, type StdioServerCommand } from './stdio-child.js';

export interface StdioBridgeOptions {
  server: StdioServerCommand;
  /** Largest accepted POST body, in bytes. */
  maxBodyBytes?: number;
  newSessionId?: () => string;
  onServerStderr?: (chunk: string) => void;
  onServerExit?: (reason: string) => void;
}

export interface StdioBridge {
  readonly http: Server;
  readonly serverPid: number | undefined;
  listen: (port?: number, host?: string) => Promise<{ url: string; port: number }>;
  close: () => Promise<void>;
}

const SESSION_HEADER = 'mcp-session-id';

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
}

function writeSse(res: ServerResponse, message: JsonRpcMessage): void {
  if (!res.destroyed && !res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

const acceptsSse = (req: IncomingMessage): boolean => (req.headers.accept ?? '').includes('text/event-stream');

/** Answers one POSTed request as JSON, switching to an event stream when progress arrives first. */
function replySink(req: IncomingMessage, res: ServerResponse, router: SessionRouter, session: RouterSession): ReplySink {
  const sse = acceptsSse(req);
  let streaming = false;
  return {
    notify: (message) => {
      if (sse && !res.destroyed) {
        if (!streaming) startSse(res);
        streaming = true;
        writeSse(res, message);
      } else {
        router.getSession(session.id)?.stream?.(message);
      }
    },
    answer: (message) => {
      if (!streaming) {
        sendJson(res, 200, message);
        return;
      }
      writeSse(res, message);
      res.end();
    },
  };
}

/**
 * Runs one stdio MCP server and serves it over Streamable HTTP at /mcp to any number of
 * sessions, plus /health.
 */
export function createStdioBridge(options: StdioBridgeOptions): StdioBridge {
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const newSessionId = options.newSessionId ?? randomUUID;
  const streams = new Map<string, ServerResponse>();
  // The router's send closes over the child, which starts only after the router exists.
  const router = new SessionRouter({ send: (message) => child.send(message) });
  const child = new StdioChild(options.server, {
    onMessage: (message) => router.serverMessage(message),
    onExit: (reason) => {
      router.serverDown(reason);
      // Ending the standalone streams tells listening clients that nothing more will come.
      for (const stream of streams.values()) stream.end();
      options.onServerExit?.(reason);
    },
    ...(options.onServerStderr === undefined ? {} : { onStderr: options.onServerStderr }),
  });

  const sessionOf = (req: IncomingMessage, res: ServerResponse): RouterSession | undefined => {
    const id = req.headers[SESSION_HEADER];
    if (typeof id !== 'string' || id === '') {
      sendJson(res, 400, errorResponse(null, INVALID_REQUEST, 'Mcp-Session-Id header is required'));
      return undefined;
    }
    const session = router.getSession(id);
    if (session === undefined) sendJson(res, 404, errorResponse(null, INVALID_REQUEST, 'unknown or ended session'));
    return session;
  };

  const post = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readBody(req, maxBodyBytes));
    } catch (err) {
      if (err instanceof BodyTooLargeError) sendJson(res, 413, errorResponse(null, INVALID_REQUEST, 'request body too large'));
      else sendJson(res, 400, errorResponse(null, PARSE_ERROR, 'body is not valid JSON'));
      return;
    }
    const message = asJsonRpcMessage(parsed);
    if (message === undefined) {
      // Batches were removed from the protocol in 2025-06-18; one message per POST.
      sendJson(res, 400, errorResponse(null, INVALID_REQUEST, 'expected one JSON-RPC 2.0 message'));
      return;
    }
    if (isRequest(message) && message.method === 'initialize') {
      const answer = await router.initialize(message);
      if (answer.error !== undefined) {
        sendJson(res, 200, answer);
        return;
      }
      const session: RouterSession = { id: newSessionId() };
      router.addSession(session);
      sendJson(res, 200, answer, { [SESSION_HEADER]: session.id });
      return;
    }
    const session = sessionOf(req, res);
    if (session === undefined) return;
    if (isRequest(message)) {
      router.request(session, message, replySink(req, res, router, session));
      return;
    }
    router.clientMessage(session, message);
    res.writeHead(202).end();
  };

  const get = (req: IncomingMessage, res: ServerResponse): void => {
    if (!acceptsSse(req)) {
      sendJson(res, 406, errorResponse(null, INVALID_REQUEST, 'GET /mcp needs Accept: text/event-stream'));
      return;
    }
    const session = sessionOf(req, res);
    if (session === undefined) return;
    startSse(res);
    // One standalone stream per session: a newer GET replaces the older one.
    streams.get(session.id)?.end();
    streams.set(session.id, res);
    const stream = (message: JsonRpcMessage): void => writeSse(res, message);
    session.stream = stream;
    res.on('close', () => {
      if (streams.get(session.id) === res) streams.delete(session.id);
      if (session.stream === stream) session.stream = undefined;
    });
  };

  const remove = (req: IncomingMessage, res: ServerResponse): void => {
    const session = sessionOf(req, res);
    if (session === undefined) return;
    router.removeSession(session.id);
    session.stream = undefined;
    streams.get(session.id)?.end();
    streams.delete(session.id);
    res.writeHead(204).end();
  };

  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && req.method === 'GET') {
      const down = router.downReason;
      sendJson(res, down === undefined ? 200 : 503, { status: down === undefined ? 'ok' : 'down', sessions: router.sessionCount });
      return;
    }
    if (path !== '/mcp') {
      sendJson(res, 404, { error: 'not found' });
      return;
    }
    if (req.method === 'POST') {
      post(req, res).catch(() => sendJson(res, 500, errorResponse(null, -32603, 'internal error')));
    } else if (req.method === 'GET') {
      get(req, res);
    } else if (req.method === 'DELETE') {
      remove(req, res);
    } else {
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    }
  });

  return {
    http,
    get serverPid() {
      return child.pid;
    },
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(port, host, () => {
          const address = http.address() as AddressInfo;
          resolve({ url: `http://${host}:${address.port}/mcp`, port: address.port });
        });
      }),
    close: async () => {
      for (const stream of streams.values()) stream.end();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await child.stop();
    },
  };
}
