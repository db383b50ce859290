import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, INVALID_REQUEST, isRequest, type JsonRpcMessage } from './jsonrpc.js';
import type { FrontEnd, FrontEndContext } from './front-end.js';
import { readMessage, sendAccepted, sendJson, startSse, writeSse } from './http-io.js';
import type { ReplySink, RouterSession } from './session-router.js';

const SESSION_HEADER = 'mcp-session-id';

const acceptsSse = (req: IncomingMessage): boolean => (req.headers.accept ?? '').includes('text/event-stream');

/** Answers one POSTed request as JSON, switching to an event stream when progress arrives first. */
function replySink(req: IncomingMessage, res: ServerResponse, session: RouterSession): ReplySink {
  const sse = acceptsSse(req);
  let streaming = false;
  return {
    notify: (message) => {
      if (sse && !res.destroyed && !res.writableEnded) {
        if (!streaming) startSse(res);
        streaming = true;
        writeSse(res, message);
        return true;
      }
      if (session.stream === undefined) return false;
      session.stream(message);
      return true;
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

/** The MCP Streamable HTTP transport at /mcp: POST messages, GET a session stream, DELETE a session. */
export function createStreamableHttpFront(context: FrontEndContext): FrontEnd {
  const { router } = context;

  const sessionOf = (req: IncomingMessage, res: ServerResponse): RouterSession | undefined => {
    const id = req.headers[SESSION_HEADER];
    if (typeof id !== 'string' || id === '') {
      sendJson(res, 400, errorResponse(null, INVALID_REQUEST, 'Mcp-Session-Id header is required'));
      return undefined;
    }
    const session = router.getSession(id);
    // 404 tells the client to initialize a new session.
    if (session === undefined) sendJson(res, 404, errorResponse(null, INVALID_REQUEST, 'unknown or ended session'));
    return session;
  };

  const initialize = async (res: ServerResponse, message: JsonRpcMessage & { id: string | number }): Promise<void> => {
    const answer = await router.initialize(message);
    if (answer.error !== undefined) {
      sendJson(res, 200, answer);
      return;
    }
    const session: RouterSession = { id: context.newSessionId() };
    router.addSession(session);
    sendJson(res, 200, answer, { [SESSION_HEADER]: session.id });
  };

  const post = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const message = await readMessage(req, res, context.maxBodyBytes);
    if (message === undefined) return;
    if (isRequest(message) && message.method === 'initialize') {
      await initialize(res, message);
      return;
    }
    const session = sessionOf(req, res);
    if (session === undefined) return;
    if (isRequest(message)) {
      const refusal = context.forward(session, message, replySink(req, res, session));
      if (refusal !== undefined) sendJson(res, refusal.status, refusal.body, refusal.headers);
      return;
    }
    router.clientMessage(session, message);
    sendAccepted(res);
  };

  const get = (req: IncomingMessage, res: ServerResponse): void => {
    if (!acceptsSse(req)) {
      sendJson(res, 406, errorResponse(null, INVALID_REQUEST, 'GET /mcp needs Accept: text/event-stream'));
      return;
    }
    const session = sessionOf(req, res);
    if (session === undefined) return;
    // One standalone stream per session: a newer GET replaces the older one.
    session.end?.();
    startSse(res);
    const stream = (message: JsonRpcMessage): void => writeSse(res, message);
    const end = (): void => void res.end();
    session.stream = stream;
    session.end = end;
    res.on('close', () => {
      if (session.stream === stream) session.stream = undefined;
      if (session.end === end) session.end = undefined;
    });
  };

  const remove = (req: IncomingMessage, res: ServerResponse): void => {
    const session = sessionOf(req, res);
    if (session === undefined) return;
    router.removeSession(session.id);
    res.writeHead(204).end();
  };

  return {
    path: '/mcp',
    handle: (req, res, path) => {
      if (path !== '/mcp') return false;
      if (req.method === 'POST') {
        post(req, res).catch(() => sendJson(res, 500, errorResponse(null, -32603, 'internal error')));
      } else if (req.method === 'GET') {
        get(req, res);
      } else if (req.method === 'DELETE') {
        remove(req, res);
      } else {
        res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
      }
      return true;
    },
  };
}
