import { formatDuration } from '../../core/config/duration.js';
import {
  errorResponse,
  INTERNAL_ERROR,
  isJsonRpcId,
  isNotification,
  isRequest,
  isResponse,
  metaOf,
  REQUEST_TIMEOUT,
  type JsonRpcId,
  type JsonRpcMessage,
} from './jsonrpc.js';

/** Where the messages for one client request go (its HTTP response or its session's stream). */
export interface ReplySink {
  /**
   * A message that belongs to the request but is not its answer (progress, server requests);
   * false when the client cannot be reached that way.
   */
  notify: (message: JsonRpcMessage) => boolean;
  answer: (message: JsonRpcMessage) => void;
}

export interface RouterSession {
  readonly id: string;
  /** The session's stream for messages not tied to a request (GET /mcp, or the SSE stream), when open. */
  stream?: ((message: JsonRpcMessage) => void) | undefined;
  /** Closes the session's open streams; called when the session ends. */
  end?: (() => void) | undefined;
  /** When the client was last heard from or last answered (clock ms), for the idle timeout. */
  lastSeen?: number;
}

interface ClientPending {
  kind: 'client';
  session: RouterSession;
  originalId: JsonRpcId;
  sink: ReplySink;
  deadline: number;
  progressToken?: { upstream: string; original: JsonRpcId };
}

/** The proxy's own initialize: no read timeout, since it also waits for the server process to start. */
interface InternalPending {
  kind: 'internal';
  resolve: (message: JsonRpcMessage) => void;
}

type Pending = ClientPending | InternalPending;

export interface SessionRouterOptions {
  send: (message: JsonRpcMessage) => void;
  /** A request with no upstream answer after this long is answered with an error and cancelled. */
  readTimeoutMs?: number;
  /** A session with nothing in flight and no message for this long is ended by sweep(). */
  sessionTtlMs?: number;
  clock?: () => number;
}

/**
 * Multiplexes many client sessions onto one upstream MCP server: request ids and progress
 * tokens are rewritten to proxy-unique values on the way up and restored on the way down.
 */
export class SessionRouter {
  readonly #send: (message: JsonRpcMessage) => void;
  readonly #readTimeoutMs: number;
  readonly #sessionTtlMs: number;
  readonly #clock: () => number;
  readonly #sessions = new Map<string, RouterSession>();
  /** In send order, so client request deadlines ascend and the oldest request in flight comes first. */
  readonly #pending = new Map<number, Pending>();
  /** Per session, client request id to upstream id; a Map keeps the ids 1 and "1" apart. */
  readonly #byClientId = new Map<string, Map<JsonRpcId, number>>();
  readonly #progress = new Map<string, ClientPending>();
  #nextId = 1;
  #init: Promise<JsonRpcMessage> | undefined;
  /** The first successful initialize, replayed to a restarted server. */
  #firstInit: JsonRpcMessage | undefined;
  /** Messages held back while a restarted server is initialized again. */
  #held: JsonRpcMessage[] | undefined;
  #down: string | undefined;

  constructor(options: SessionRouterOptions) {
    this.#send = options.send;
    this.#readTimeoutMs = options.readTimeoutMs ?? Infinity;
    this.#sessionTtlMs = options.sessionTtlMs ?? Infinity;
    this.#clock = options.clock ?? Date.now;
  }

  get downReason(): string | undefined {
    return this.#down;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  addSession(session: RouterSession): void {
    session.lastSeen = this.#clock();
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
      this.#cancelUpstream(upstreamId, 'session ended');
      this.#settle(upstreamId, pending);
      pending.sink.answer(errorResponse(pending.originalId, INTERNAL_ERROR, 'session ended'));
    }
    this.#byClientId.delete(id);
    session.stream = undefined;
    session.end?.();
    return true;
  }

  /**
   * The upstream server is initialized once, by the first client; every later session gets the
   * cached answer so that one process serves them all.
   */
  initialize(request: JsonRpcMessage & { id: JsonRpcId }): Promise<JsonRpcMessage> {
    if (this.#init === undefined) {
      const attempt = this.#internal(request).then((answer) => {
        if (answer.error !== undefined) {
          this.#init = undefined;
        } else {
          this.#firstInit = request;
          this.#send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        }
        return answer;
      });
      this.#init = attempt;
    }
    return this.#init.then((answer) => ({ ...answer, id: request.id }));
  }

  /** Sends a request of the proxy's own (initialize), answered through the returned promise. */
  #internal(request: JsonRpcMessage): Promise<JsonRpcMessage> {
    const upstreamId = this.#nextId++;
    const answered = new Promise<JsonRpcMessage>((resolve) => {
      this.#pending.set(upstreamId, { kind: 'internal', resolve });
    });
    if (this.#down !== undefined) this.#failAll(this.#down);
    else this.#send({ ...request, id: upstreamId });
    return answered;
  }

  /** A client request other than initialize. */
  request(session: RouterSession, request: JsonRpcMessage & { id: JsonRpcId; method: string }, sink: ReplySink): void {
    const now = this.#clock();
    session.lastSeen = now;
    if (this.#down !== undefined) {
      sink.answer(errorResponse(request.id, INTERNAL_ERROR, `MCP server is not running: ${this.#down}`));
      return;
    }
    const upstreamId = this.#nextId++;
    const pending: ClientPending = { kind: 'client', session, originalId: request.id, sink, deadline: now + this.#readTimeoutMs };
    let params = request.params;
    const token = metaOf(params)?.progressToken;
    if (isJsonRpcId(token)) {
      const upstreamToken = `p${String(upstreamId)}`;
      pending.progressToken = { upstream: upstreamToken, original: token };
      this.#progress.set(upstreamToken, pending);
      params = { ...params, _meta: { ...metaOf(params), progressToken: upstreamToken } };
    }
    this.#pending.set(upstreamId, pending);
    this.#byClientId.get(session.id)?.set(request.id, upstreamId);
    this.#forward({ ...request, id: upstreamId, ...(params === undefined ? {} : { params }) });
  }

  /** A client notification or a client's answer to a server request. */
  clientMessage(session: RouterSession, message: JsonRpcMessage): void {
    session.lastSeen = this.#clock();
    if (this.#down !== undefined) return;
    if (message.method === 'notifications/initialized') return; // sent once by the router itself
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      const upstreamId = isJsonRpcId(requestId) ? this.#byClientId.get(session.id)?.get(requestId) : undefined;
      if (upstreamId === undefined) return;
      this.#forward({ ...message, params: { ...message.params, requestId: upstreamId } });
      return;
    }
    this.#forward(message);
  }

  #forward(message: JsonRpcMessage): void {
    if (this.#held !== undefined) this.#held.push(message);
    else this.#send(message);
  }

  /** A message from the upstream server. */
  serverMessage(message: JsonRpcMessage): void {
    if (isResponse(message) && isJsonRpcId(message.id)) {
      const upstreamId = message.id;
      const pending = typeof upstreamId === 'number' ? this.#pending.get(upstreamId) : undefined;
      if (pending === undefined || typeof upstreamId !== 'number') return;
      this.#settle(upstreamId, pending);
      if (pending.kind === 'internal') {
        pending.resolve(message);
        return;
      }
      pending.session.lastSeen = this.#clock();
      message.id = pending.originalId;
      pending.sink.answer(message);
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
    // Sampling, elicitation and roots requests are almost always made while serving a tool call,
    // so the client with the newest request in flight is the one that asked.
    const inFlight = [...this.#pending.values()];
    for (let i = inFlight.length - 1; i >= 0; i--) {
      const pending = inFlight[i];
      if (pending?.kind === 'client' && pending.sink.notify(message)) return;
    }
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
    this.#byClientId.get(pending.session.id)?.delete(pending.originalId);
    if (pending.progressToken !== undefined) this.#progress.delete(pending.progressToken.upstream);
  }

  #cancelUpstream(upstreamId: number, reason: string): void {
    this.#forward({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId, reason } });
  }

  /**
   * Answers requests that outlived the read timeout (and cancels them upstream), then ends
   * sessions idle for longer than the session TTL. Called periodically.
   */
  sweep(now = this.#clock()): void {
    for (const [upstreamId, pending] of this.#pending) {
      if (pending.kind === 'internal') continue;
      if (pending.deadline > now) break;
      this.#settle(upstreamId, pending);
      const message = `upstream did not answer within ${formatDuration(this.#readTimeoutMs)}`;
      this.#cancelUpstream(upstreamId, 'proxy read timeout');
      pending.sink.answer(errorResponse(pending.originalId, REQUEST_TIMEOUT, message));
    }
    for (const session of this.#sessions.values()) {
      if ((session.lastSeen ?? now) + this.#sessionTtlMs > now) continue;
      if ((this.#byClientId.get(session.id)?.size ?? 0) > 0) continue;
      this.removeSession(session.id);
    }
  }

  /** The upstream process is gone: every request in flight gets a JSON-RPC error. */
  serverDown(reason: string): void {
    this.#down = reason;
    this.#held = undefined;
    this.#failAll(reason);
  }

  /**
   * A fresh server process replaces the old one. Nothing is sent to it before it has been
   * initialized with the first client's initialize request, so existing sessions carry on.
   */
  serverRestarted(): void {
    this.#failAll(this.#down ?? 'restarted');
    this.#down = undefined;
    const first = this.#firstInit;
    if (first === undefined) return;
    const held: JsonRpcMessage[] = [];
    this.#held = held;
    void this.#internal(first).then((answer) => {
      // Superseded: this process died or was replaced, and whoever did that has failed everything.
      if (this.#held !== held) return;
      this.#held = undefined;
      if (answer.error !== undefined) {
        this.serverDown(`initialize failed: ${answer.error.message}`);
        return;
      }
      this.#send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      for (const message of held) this.#send(message);
    });
  }

  #failAll(reason: string): void {
    const message = `MCP server is not running: ${reason}`;
    for (const [upstreamId, pending] of [...this.#pending]) {
      this.#settle(upstreamId, pending);
      if (pending.kind === 'internal') pending.resolve(errorResponse(upstreamId, INTERNAL_ERROR, message));
      else pending.sink.answer(errorResponse(pending.originalId, INTERNAL_ERROR, message));
    }
  }
}
