import {
  errorResponse,
  INTERNAL_ERROR,
  isJsonRpcId,
  isNotification,
  isRequest,
  isResponse,
  metaOf,
  type JsonRpcId,
  type JsonRpcMessage,
} from './jsonrpc.js';

/** Where the messages for one client request go (its HTTP response). */
export interface ReplySink {
  /** A message that belongs to the request but is not its answer (progress). */
  notify: (message: JsonRpcMessage) => void;
  answer: (message: JsonRpcMessage) => void;
}

export interface RouterSession {
  readonly id: string;
  /** The session's standalone stream (GET /mcp), when open. */
  stream?: ((message: JsonRpcMessage) => void) | undefined;
}

interface ClientPending {
  kind: 'client';
  session: RouterSession;
  originalId: JsonRpcId;
  sink: ReplySink;
  progressToken?: { upstream: string; original: JsonRpcId };
}

interface InternalPending {
  kind: 'internal';
  resolve: (message: JsonRpcMessage) => void;
}

type Pending = ClientPending | InternalPending;

export interface SessionRouterOptions {
  send: (message: JsonRpcMessage) => void;
}

const idKey = (id: JsonRpcId): string => `${typeof id}:${String(id)}`;

/**
 * Multiplexes many client sessions onto one upstream MCP server: request ids and progress
 * tokens are rewritten to proxy-unique values on the way up and restored on the way down.
 */
export class SessionRouter {
  readonly #send: (message: JsonRpcMessage) => void;
  readonly #sessions = new Map<string, RouterSession>();
  readonly #pending = new Map<number, Pending>();
  readonly #byClientId = new Map<string, Map<string, number>>();
  readonly #progress = new Map<string, ClientPending>();
  #nextId = 1;
  #init: Promise<JsonRpcMessage> | undefined;
  #down: string | undefined;

  constructor(options: SessionRouterOptions) {
    this.#send = options.send;
  }

  get downReason(): string | undefined {
    return this.#down;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  addSession(session: RouterSession): void {
    this.#sessions.set(session.id, session);
    this.#byClientId.set(session.id, new Map());
  }

  getSession(id: string): RouterSession | undefined {
    return this.#sessions.get(id);
  }

  /** Ends a session; its in-flight requests are cancelled upstream and answered with an error. */
  removeSession(id: string): boolean {
    const session = this.#sessions.get(id);
    if (session === undefined) return false;
    this.#sessions.delete(id);
    for (const upstreamId of this.#byClientId.get(id)?.values() ?? []) {
      const pending = this.#pending.get(upstreamId);
      if (pending?.kind !== 'client') continue;
      this.#send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId, reason: 'session ended' } });
      this.#settle(upstreamId, pending);
      pending.sink.answer(errorResponse(pending.originalId, INTERNAL_ERROR, 'session ended'));
    }
    this.#byClientId.delete(id);
    return true;
  }

  /**
   * The upstream server is initialized once, by the first client; every later session gets the
   * cached answer so that one process serves them all.
   */
  initialize(request: JsonRpcMessage & { id: JsonRpcId }): Promise<JsonRpcMessage> {
    if (this.#init === undefined) {
      const upstreamId = this.#nextId++;
      const attempt = new Promise<JsonRpcMessage>((resolve) => {
        this.#pending.set(upstreamId, { kind: 'internal', resolve });
      }).then((answer) => {
        if (answer.error !== undefined) this.#init = undefined;
        else this.#send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        return answer;
      });
      this.#init = attempt;
      if (this.#down !== undefined) this.#failAll(this.#down);
      else this.#send({ ...request, id: upstreamId });
    }
    return this.#init.then((answer) => ({ ...answer, id: request.id }));
  }

  /** A client request other than initialize. */
  request(session: RouterSession, request: JsonRpcMessage & { id: JsonRpcId; method: string }, sink: ReplySink): void {
    if (this.#down !== undefined) {
      sink.answer(errorResponse(request.id, INTERNAL_ERROR, `MCP server is not running: ${this.#down}`));
      return;
    }
    const upstreamId = this.#nextId++;
    const pending: ClientPending = { kind: 'client', session, originalId: request.id, sink };
    let params = request.params;
    const token = metaOf(params)?.progressToken;
    if (isJsonRpcId(token)) {
      const upstreamToken = `p${upstreamId}`;
      pending.progressToken = { upstream: upstreamToken, original: token };
      this.#progress.set(upstreamToken, pending);
      params = { ...params, _meta: { ...metaOf(params), progressToken: upstreamToken } };
    }
    this.#pending.set(upstreamId, pending);
    this.#byClientId.get(session.id)?.set(idKey(request.id), upstreamId);
    this.#send({ ...request, id: upstreamId, ...(params === undefined ? {} : { params }) });
  }

  /** A client notification or a client's answer to a server request. */
  clientMessage(session: RouterSession, message: JsonRpcMessage): void {
    if (this.#down !== undefined) return;
    if (message.method === 'notifications/initialized') return; // sent once by the router itself
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      const upstreamId = isJsonRpcId(requestId) ? this.#byClientId.get(session.id)?.get(idKey(requestId)) : undefined;
      if (upstreamId === undefined) return;
      this.#send({ ...message, params: { ...message.params, requestId: upstreamId } });
      return;
    }
    this.#send(message);
  }

  /** A message from the upstream server. */
  serverMessage(message: JsonRpcMessage): void {
    if (isResponse(message) && isJsonRpcId(message.id)) {
      const upstreamId = message.id;
      const pending = typeof upstreamId === 'number' ? this.#pending.get(upstreamId) : undefined;
      if (pending === undefined || typeof upstreamId !== 'number') return;
      this.#settle(upstreamId, pending);
      if (pending.kind === 'internal') pending.resolve(message);
      else pending.sink.answer({ ...message, id: pending.originalId });
      return;
    }
    if (isRequest(message)) {
      this.#serverRequest(message);
      return;
    }
    if (!isNotification(message)) return;
    if (message.method === 'notifications/progress') {
      const token = message.params?.progressToken;
      const pending = typeof token === 'string' ? this.#progress.get(token) : undefined;
      if (pending?.progressToken === undefined) return;
      pending.sink.notify({ ...message, params: { ...message.params, progressToken: pending.progressToken.original } });
      return;
    }
    for (const session of this.#sessions.values()) session.stream?.(message);
  }

  #serverRequest(message: JsonRpcMessage & { id: JsonRpcId; method: string }): void {
    if (message.method === 'ping') {
      this.#send({ jsonrpc: '2.0', id: message.id, result: {} });
      return;
    }
    // Without a request to relate it to, the first session that listens answers it.
    for (const session of this.#sessions.values()) {
      if (session.stream !== undefined) {
        session.stream(message);
        return;
      }
    }
    this.#send(errorResponse(message.id, INTERNAL_ERROR, 'no client session is listening for server requests'));
  }

  #settle(upstreamId: number, pending: Pending): void {
    this.#pending.delete(upstreamId);
    if (pending.kind !== 'client') return;
    this.#byClientId.get(pending.session.id)?.delete(idKey(pending.originalId));
    if (pending.progressToken !== undefined) this.#progress.delete(pending.progressToken.upstream);
  }

  /** The upstream process is gone: every request in flight gets a JSON-RPC error. */
  serverDown(reason: string): void {
    this.#down = reason;
    this.#failAll(reason);
  }

  #failAll(reason: string): void {
    for (const [upstreamId, pending] of [...this.#pending]) {
      this.#settle(upstreamId, pending);
      const message = `MCP server is not running: ${reason}`;
      if (pending.kind === 'internal') pending.resolve(errorResponse(upstreamId, INTERNAL_ERROR, message));
      else pending.sink.answer(errorResponse(pending.originalId, INTERNAL_ERROR, message));
    }
  }
}
