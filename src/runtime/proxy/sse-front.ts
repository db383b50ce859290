import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, INTERNAL_ERROR, INVALID_REQUEST, isRequest, type JsonRpcMessage } from './jsonrpc.js';
import type { FrontEnd, FrontEndContext } from './front-end.js';
import { readMessage, sendAccepted, sendJson, startSse, writeSse } from './http-io.js';
import type { ReplySink, RouterSession } from './session-router.js';

interface SseSession extends RouterSession {
  /** Every answer and notification of the session goes down its one stream. */
  readonly sink: ReplySink;
}

function sessionIdOf(url: string): string | null {
  const query = url.indexOf('?');
  return query === -1 ? null : new URLSearchParams(url.slice(query + 1)).get('sessionId');
}

/**
 * The MCP 2024-11-05 HTTP+SSE transport: GET /sse opens a session and its stream, which first
 * names the endpoint to POST messages to; closing the stream ends the session.
 */
export function createSseFront(context: FrontEndContext): FrontEnd {
  const { router } = context;
  const sessions = new Map<string, SseSession>();

  const open = (res: ServerResponse): void => {
    const id = context.newSessionId();
    const write = (message: JsonRpcMessage): void => writeSse(res, message);
    const notify = (message: JsonRpcMessage): boolean => {
      write(message);
      return !res.writableEnded;
    };
    const session: SseSession = { id, stream: write, end: () => void res.end(), sink: { notify, answer: write } };
    startSse(res);
    res.write(`event: endpoint\ndata: /messages?sessionId=${encodeURIComponent(id)}\n\n`);
    sessions.set(id, session);
    router.addSession(session);
    res.on('close', () => {
      sessions.delete(id);
      router.removeSession(id);
    });
  };

  const post = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const id = sessionIdOf(req.url ?? '');
    if (id === null || id === '') {
      sendJson(res, 400, errorResponse(null, INVALID_REQUEST, 'the sessionId query parameter is required'));
      return;
    }
    const session = sessions.get(id);
    if (session === undefined) {
      sendJson(res, 404, errorResponse(null, INVALID_REQUEST, 'unknown or ended session'));
      return;
    }
    const message = await readMessage(req, res, context.maxBodyBytes);
    if (message === undefined) return;
    if (isRequest(message) && message.method === 'initialize') {
      sendAccepted(res);
      session.sink.answer(await router.initialize(message));
      return;
    }
    if (!isRequest(message)) {
      router.clientMessage(session, message);
      sendAccepted(res);
      return;
    }
    const refusal = context.forward(session, message, session.sink);
    // Only a failed POST reaches the client as an error; a JSON-RPC answer belongs on the stream.
    if (refusal === undefined || refusal.status === 200) {
      sendAccepted(res);
      if (refusal !== undefined) session.sink.answer(refusal.body);
      return;
    }
    sendJson(res, refusal.status, refusal.body, refusal.headers);
  };

  return {
    path: '/sse',
    handle: (req, res, path) => {
      if (path === '/sse' && req.method === 'GET') open(res);
      else if (path === '/messages' && req.method === 'POST') {
        post(req, res).catch(() => sendJson(res, 500, errorResponse(null, INTERNAL_ERROR, 'internal error')));
      } else if (path === '/sse' || path === '/messages') {
        res.writeHead(405, { allow: path === '/sse' ? 'GET' : 'POST' }).end();
      } else return false;
      return true;
    },
  };
}
