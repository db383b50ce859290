import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { request, type Dispatcher } from 'undici';
import { createSseReader, parseEvent } from '../../core/http/sse.js';
import { isJsonObject } from '../../core/json-object.js';

/** An open Streamable HTTP session with an upstream, as its SDK client's transport holds it. */
export interface UpstreamSession {
  endpoint: string;
  /** The connector's credential headers. */
  headers: Record<string, string>;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** An undici 7 dispatcher (the dispatch callbacks below are its handler interface). */
  dispatcher: Dispatcher;
}

interface Message {
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** What an error answer's body may add to its message. */
const MAX_ERROR_TEXT = 4_096;

const headersOf = (session: UpstreamSession): Record<string, string> => ({
  ...(session.sessionId !== undefined && { 'mcp-session-id': session.sessionId }),
  ...(session.protocolVersion !== undefined && { 'mcp-protocol-version': session.protocolVersion }),
  ...session.headers,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/** Fire and forget, as the SDK client sends answers and notifications that nothing waits for. */
const tell = (session: UpstreamSession, message: unknown) => {
  request(session.endpoint, { method: 'POST', headers: headersOf(session), body: JSON.stringify(message), dispatcher: session.dispatcher })
    .then((response) => response.body.dump())
    .catch(() => undefined);
};

const mediaType = (value: string | string[] | undefined): string => String(value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * One request over an open session, answered as the SDK client would answer it, without its per-request
 * machinery (WHATWG streams, schema checks), which costs more than the gateway's own work on a call: the
 * result object, an McpError for a JSON-RPC error or a timeout (the request is then cancelled upstream), and
 * an Error for anything else (HTTP status, content type, a stream that ends unanswered). A request the server
 * sends meanwhile gets the SDK client's answer: ping is answered, anything else is not served.
 *
 * The exchange runs on undici's dispatch callbacks rather than a response body stream: an SSE answer is read
 * as bytes where it arrives and only its events are decoded, and the rest of the stream is read to its end, so
 * that the connection is kept.
 */
export function forwardRequest(session: UpstreamSession, id: string, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    /** Whether this is the first outcome: later ones (an abort's error after the time-out, say) are dropped. */
    const first = () => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    const fail = (error: Error) => {
      if (first()) reject(error);
    };
    const timer = setTimeout(() => {
      // settled before the abort, which reports its own error to the handler at once
      fail(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
      controller?.abort(new Error(`timed out after ${String(timeoutMs)} ms`));
      tell(session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: `timed out after ${String(timeoutMs)} ms` } });
    }, timeoutMs);

    const answered = (answer: Message) => {
      if (answer.error !== undefined) {
        const { code, message, data } = answer.error;
        return fail(new McpError(typeof code === 'number' ? code : ErrorCode.InternalError, typeof message === 'string' ? message : 'the upstream gave no message', data));
      }
      if (!isJsonObject(answer.result)) return fail(new Error(`the upstream's result of ${method} is not an object`));
      if (first()) resolve(answer.result);
    };

    /** A message of the stream: the response to `id`, or a request of the server's, which is answered. */
    const received = (message: unknown) => {
      if (!isJsonObject(message)) return;
      if (typeof message.method === 'string' && message.id !== undefined) {
        const outcome = message.method === 'ping' ? { result: {} } : { error: { code: ErrorCode.MethodNotFound, message: 'Method not found' } };
        tell(session, { jsonrpc: '2.0', id: message.id, ...outcome });
      } else if (message.id === id && message.method === undefined) {
        answered(message);
      }
    };

    let status = 0;
    let ok = false;
    let type = '';
    const reader = createSseReader();
    // the body of a JSON answer or of an error status, kept whole
    const kept: Buffer[] = [];
    let keptBytes = 0;

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
      },
      onResponseStart(_controller, statusCode, headers) {
        status = statusCode;
        ok = statusCode >= 200 && statusCode < 300;
        type = mediaType(headers['content-type']);
      },
      onResponseData(_controller, chunk) {
        if (ok && type === 'text/event-stream') {
          const { bytes, ends } = reader.push(chunk);
          for (let at = 0; at < ends.length; at++) {
            const { event, data } = parseEvent(bytes.toString('utf8', ends[at - 1] ?? 0, ends[at]));
            if (data === undefined || (event !== undefined && event !== 'message')) continue;
            let message: unknown;
            try {
              message = JSON.parse(data);
            } catch {
              continue;
            }
            received(message);
          }
        } else if (ok || keptBytes < MAX_ERROR_TEXT) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
      },
      onResponseEnd() {
        const body = () => Buffer.concat(kept).toString('utf8');
        if (!ok) return fail(new Error(`the upstream answered HTTP ${String(status)}: ${body().slice(0, MAX_ERROR_TEXT)}`));
        if (type !== 'text/event-stream') {
          let parsed: unknown;
          try {
            parsed = JSON.parse(body());
          } catch (error) {
            return fail(error instanceof Error ? error : new Error(String(error)));
          }
          const answer = (Array.isArray(parsed) ? parsed : [parsed]).find((message: Message | null) => isJsonObject(message) && message.id === id && message.method === undefined) as Message | undefined;
          if (answer) return answered(answer);
        }
        fail(new Error(`the upstream's ${type === '' ? 'untyped' : type} answer to ${method} holds no response to it`));
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    };

    try {
      const url = new URL(session.endpoint);
      session.dispatcher.dispatch(
        { origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers: headersOf(session), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) },
        handler,
      );
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
