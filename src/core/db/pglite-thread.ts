import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbeddedEngine } from './pglite-dialect.js';
import { PGLITE_THREAD_SOURCE } from './pglite-thread-worker-source.js';

export interface PgliteThreadOptions {
  /** The data directory (`memory://` or a path); absent keeps the data in memory. */
  dataDir?: string;
  /** A dump of a data directory to start from (PGlite's `loadDataDir`). */
  loadDataDir?: Blob;
}

/** PGlite on its own thread: SQL runs in parallel with the HTTP work of the main thread. */
export interface PgliteThread extends EmbeddedEngine {
  /** Flushes and closes the engine, then ends the thread; later queries are rejected. */
  close(): Promise<void>;
}

interface WireError {
  message: string;
  fields: Record<string, unknown>;
  withParams: boolean;
}

interface Reply {
  id: number;
  rows?: unknown[];
  affectedRows?: number;
  error?: WireError;
}

interface Pending {
  resolve(reply: Reply): void;
  reject(error: Error): void;
  params: readonly unknown[];
}

/** The same words as PGlite's own error, which callers already recognise as "the database is gone". */
const CLOSED = 'PGlite is closed';

const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');

/**
 * The compiled WebAssembly, kept from the first engine of the process and handed to every later one (a
 * compiled module crosses threads without a copy): each later engine (tests start one per test) skips
 * compiling 9 MB of it. The first engine's thread compiles it itself, so a server's start never waits for
 * this thread, busy loading the server's modules, to compile it or to pass it on.
 */
let compiled: unknown;
const WASM_PATH = join(dirname(pglitePath), 'pglite.wasm');

/**
 * PGlite's error with its fields. The statement and its parameters stay readable (`query`, `params`) but are
 * not enumerable, so a logged database error carries no request data (personal data, tokens) into the logs,
 * as a PostgreSQL server's errors do not.
 */
function fromWire(wire: WireError, params: readonly unknown[]): Error {
  const { query, ...fields } = wire.fields;
  delete fields.queryOptions;
  const error = Object.assign(new Error(wire.message), fields);
  if (query !== undefined) Object.defineProperty(error, 'query', { value: query, enumerable: false });
  // the thread's copy of the parameters may differ (Buffers arrive as Uint8Arrays); the caller's are the truth
  if (wire.withParams) Object.defineProperty(error, 'params', { value: params, enumerable: false });
  return error;
}

const textOf = (value: { toString(): string }): string => value.toString();

/** Class instances (a Decimal, say) lose their prototype in the clone; send what PGlite would make of them. */
function toWire(params: readonly unknown[]): { params: unknown[]; objects: [number, { text: string; json: string | undefined }][] } {
  const objects: [number, { text: string; json: string | undefined }][] = [];
  const copy = params.map((value, at) => {
    if (typeof value !== 'object' || value === null || value instanceof Date || ArrayBuffer.isView(value) || Array.isArray(value)) return value;
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) return value;
    objects.push([at, { text: textOf(value), json: JSON.stringify(value) }]);
    return null;
  });
  return { params: copy, objects };
}

/** A thread loading and compiling PGlite before its data directory is known: a server starts it first thing. */
export interface PreparedPgliteThread {
  /** Opens the engine; once. */
  open(options?: PgliteThreadOptions): Promise<PgliteThread>;
  /** Ends a thread that will not be opened (the configuration names a PostgreSQL server, or cannot be read). */
  cancel(): Promise<void>;
}

export function preparePgliteThread(): PreparedPgliteThread {
  const worker = new Worker(PGLITE_THREAD_SOURCE, {
    eval: true,
    // plain CommonJS needs none of the parent's flags; a loader (tsx) or --input-type=module would only slow or break it
    execArgv: [],
    workerData: { pglite: pglitePath, wasmPath: WASM_PATH, wasmModule: compiled },
  });
  // a thread not opened yet never keeps the process alive: a command that cannot read its configuration still exits
  worker.unref();
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let stopped: Error | undefined;
  let closing: Promise<void> | undefined;

  const stop = (error: Error) => {
    stopped ??= error;
    for (const request of pending.values()) request.reject(stopped);
    pending.clear();
  };

  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: Reply & { ready?: true; failed?: WireError; compiled?: unknown }) => {
      if (message.compiled !== undefined) {
        compiled ??= message.compiled;
        return;
      }
      if (message.ready) return resolve();
      if (message.failed) return reject(fromWire(message.failed, []));
      const request = pending.get(message.id);
      if (!request) return;
      pending.delete(message.id);
      // only a query in flight keeps the process alive, as an in-thread engine would
      if (pending.size === 0) worker.unref();
      if (message.error) request.reject(fromWire(message.error, request.params));
      else request.resolve(message);
    });
    worker.on('error', (error) => {
      stop(new Error(`${CLOSED}: its thread failed (${error.message})`));
      reject(error);
    });
    worker.on('exit', (code) => {
      stop(new Error(`${CLOSED}: its thread exited with code ${code}`));
      reject(stopped ?? new Error(CLOSED));
    });
  });
  // awaited by open(); a thread that fails before anyone opens it has no one to tell
  ready.catch(() => undefined);

  const send = (request: { op: 'query'; sql: string; params: readonly unknown[] } | { op: 'close' }): Promise<Reply> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    const params = request.op === 'query' ? request.params : [];
    try {
      worker.postMessage(request.op === 'query' ? { id, op: 'query', sql: request.sql, ...toWire(request.params) } : { id, op: 'close' });
    } catch (error) {
      // a value structured clone cannot copy (a function, say)
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (pending.size === 0) worker.ref();
    return new Promise<Reply>((resolve, reject) => pending.set(id, { resolve, reject, params }));
  };

  const engine: PgliteThread = {
    async query(sql: string, params: readonly unknown[] = []) {
      const reply = await send({ op: 'query', sql, params });
      return { rows: reply.rows ?? [], ...(reply.affectedRows !== undefined && { affectedRows: reply.affectedRows }) };
    },
    close() {
      closing ??= (async () => {
        // a thread that already stopped has nothing left to flush
        await send({ op: 'close' }).catch(() => undefined);
        stop(new Error(CLOSED));
        await worker.terminate();
      })();
      return closing;
    },
  };

  let opened = false;
  return {
    async open(options = {}) {
      if (opened) throw new Error('a prepared embedded database thread opens once');
      opened = true;
      worker.ref();
      worker.postMessage({ open: { dataDir: options.dataDir, loadDataDir: options.loadDataDir } });
      try {
        await ready;
      } catch (error) {
        await worker.terminate();
        throw error;
      }
      worker.unref();
      return engine;
    },
    cancel: async () => {
      await worker.terminate();
    },
  };
}

export function startPgliteThread(options: PgliteThreadOptions = {}): Promise<PgliteThread> {
  return preparePgliteThread().open(options);
}
