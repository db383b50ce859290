import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';
import { request, type Dispatcher } from 'undici';

/** An open Streamable HTTP session with an upstream, as its SDK client's transport holds it. */
export interface UpstreamSession {
  endpoint: string;
  /** The connector's credential headers. */
  headers: Record<string, string>;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** Undefined for the default dispatcher. */
  dispatcher: Dispatcher | undefined;
}

interface Message {
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const post = (session: UpstreamSession, message: unknown, signal?: AbortSignal) =>
  request(session.endpoint, {
    method: 'POST',
    headers: {
      ...(session.sessionId !== undefined && { 'mcp-session-id': session.sessionId }),
      ...(session.protocolVersion !== undefined && { 'mcp-protocol-version': session.protocolVersion }),
      ...session.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
    ...(session.dispatcher && { dispatcher: session.dispatcher }),
    ...(signal && { signal }),
  });

/** Fire and forget, as the SDK client sends answers and notifications that nothing waits for. */
const tell = (session: UpstreamSession, message: unknown) => {
  post(session, message)
    .then((response) => response.body.dump())
    .catch(() => undefined);
};

/**
 * One request over an open session, answered as the SDK client would answer it, without its per-request
 * machinery (WHATWG streams, schema checks), which costs more than the gateway's own work on a call: the
 * result object, an McpError for a JSON-RPC error or a timeout (the request is then cancelled upstream), and
 * an Error for anything else (HTTP status, content type, a stream that ends unanswered). A request the server
 * sends meanwhile gets the SDK client's answer: ping is answered, anything else is not served.
 */
export async function forwardRequest(session: UpstreamSession, id: string, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await post(session, { jsonrpc: '2.0', id, method, params }, abort.signal);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const text = await response.body.text().catch(() => '');
      throw new Error(`the upstream answered HTTP ${String(response.statusCode)}: ${text}`);
    }
    const type = String(response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    const answer = type === 'text/event-stream' ? await answerInStream(session, response.body, id) : answerInJson(await response.body.json(), id);
    if (!answer) throw new Error(`the upstream's ${type ?? 'untyped'} answer to ${method} holds no response to it`);
    if (answer.error !== undefined) {
      const { code, message, data } = answer.error;
      throw new McpError(typeof code === 'number' ? code : ErrorCode.InternalError, typeof message === 'string' ? message : 'the upstream gave no message', data);
    }
    if (!isObject(answer.result)) throw new Error(`the upstream's result of ${method} is not an object`);
    return answer.result;
  } catch (error) {
    if (!abort.signal.aborted) throw error;
    tell(session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: `timed out after ${String(timeoutMs)} ms` } });
    throw new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs });
  } finally {
    clearTimeout(timer);
  }
}

const answerInJson = (body: unknown, id: string): Message | undefined => (Array.isArray(body) ? body : [body]).find((message: Message | null) => isObject(message) && message.id === id && message.method === undefined) as Message | undefined;

/** Reads the SSE stream until the response to `id`; the rest of the stream is read to its end, so that the connection is kept. */
function answerInStream(session: UpstreamSession, body: Dispatcher.ResponseData['body'], id: string): Promise<Message | undefined> {
  return new Promise((resolve, reject) => {
    const parser = createParser({
      onEvent(event) {
        if (event.event !== undefined && event.event !== 'message') return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          return;
        }
        if (!isObject(message)) return;
        if (typeof message.method === 'string' && message.id !== undefined) {
          const outcome = message.method === 'ping' ? { result: {} } : { error: { code: ErrorCode.MethodNotFound, message: 'Method not found' } };
          tell(session, { jsonrpc: '2.0', id: message.id, ...outcome });
        } else if (message.id === id && message.method === undefined) {
          resolve(message);
        }
      },
    });
    const text = new StringDecoder('utf8');
    body.on('data', (chunk: Buffer) => parser.feed(text.write(chunk)));
    body.on('end', () => resolve(undefined));
    body.on('error', reject);
  });
}
