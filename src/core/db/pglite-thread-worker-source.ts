/**
 * The program of the embedded database's thread, run with `eval: true`. It is plain CommonJS in a
 * string because a `.ts` worker entry loads neither under plain Node (dist) nor inside vitest's
 * workers, while an eval worker runs the same way under vitest, tsx and Node. PGlite comes from the
 * path the main side resolved (`workerData.pglite`), so the thread uses the package the code was
 * installed with.
 *
 * Protocol: `workerData.wasmModule` is the compiled WebAssembly when an earlier engine of the process
 * compiled it; otherwise the thread compiles it and sends it back (`{ compiled }`) for the next ones. The
 * first message, `{ open: { dataDir, loadDataDir } }`, opens the engine; the thread answers `{ ready: true }`
 * or `{ failed }`, then one reply per request, in order: `{ id, rows, affectedRows }` or `{ id, error }`.
 * Requests run one at a time, so `close` flushes after every query sent before it.
 *
 * A query runs as PGlite's own `query` would (parameters serialized by the types the server infers, rows
 * parsed by PGlite's parsers, the same errors), with one difference: each statement text (up to 8 KB) is
 * parsed and described once as a named prepared statement, and later runs send only Bind, Describe, Execute
 * and Sync in one exchange. PGlite's `query` makes six exchanges and plans the statement every time; this
 * halves the cost of a short statement and lets PostgreSQL keep a generic plan for a long one.
 */
export const PGLITE_THREAD_SOURCE = String.raw`
const { readFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite, messages: { DatabaseError }, protocol, types } = require(workerData.pglite);
const { serialize } = protocol;

// the most prepared statements kept; the least recently used is closed past it
const STATEMENTS_KEPT = 256;
// a longer text (a bulk insert's placeholders, say) is run once by PGlite itself: its parse tree and plan,
// kept 256 times over, could hold hundreds of megabytes of the engine's memory
const LONGEST_KEPT = 8192;
// a statement that may change what prepared statements return (a table altered): all are prepared anew after
// it, and again when its transaction rolls back, since PostgreSQL refuses one whose result columns changed
const SCHEMA_CHANGE = /^(CREATE|ALTER|DROP|DO)\b/;
const COUNTED = new Set(['UPDATE', 'DELETE', 'COPY', 'MERGE']);

// Structured clone keeps only message and stack of an Error; PGlite's fields (code, detail,
// constraint, ...) travel as plain values and the main side puts them back on a new Error. PGlite
// also throws objects that are no Error (ExitStatus when it cannot start): their message counts too.
function wireError(error) {
  const fields = {};
  if (typeof error !== 'object' || error === null) return { message: String(error), fields, withParams: false };
  for (const key of Object.keys(error)) {
    const value = error[key];
    if (key !== 'message' && (value === null || (typeof value !== 'object' && typeof value !== 'function'))) fields[key] = value;
  }
  const message = typeof error.message === 'string' ? error.message : String(error);
  return { message, fields, withParams: Object.hasOwn(error, 'params') };
}

// A class instance lost its prototype in the clone; it comes back as an object that serializes
// the way the original did (toString for most types, toJSON for json), so PGlite sees no change.
function revive(params, objects) {
  for (const [at, { text, json }] of objects) {
    params[at] = { toString: () => text, toJSON: () => (json === undefined ? undefined : JSON.parse(json)) };
  }
  return params;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// rows changed, as PGlite counts them from a command's tag
function changed(tag) {
  const words = tag.split(' ');
  if (words[0] === 'INSERT') return Number.parseInt(words[2], 10);
  return COUNTED.has(words[0]) ? Number.parseInt(words[1], 10) : 0;
}

// the result as PGlite's parseResults makes it, without its copy of every parser on each call
function resultOf(messages, parsers) {
  let fields = [];
  const rows = [];
  let affectedRows = 0;
  let tag = '';
  let status = 'I';
  for (const message of messages) {
    if (message.name === 'rowDescription') {
      fields = message.fields;
    } else if (message.name === 'dataRow') {
      const row = {};
      for (let at = 0; at < fields.length; at++) row[fields[at].name] = types.parseType(message.fields[at], fields[at].dataTypeID, parsers);
      rows.push(row);
    } else if (message.name === 'commandComplete') {
      tag = message.text;
      affectedRows += changed(tag);
    } else if (message.name === 'readyForQuery') {
      status = message.status;
    }
  }
  // status: the transaction state after the statement, 'I' outside a transaction block
  return { rows, affectedRows, tag, status };
}

function createStatements(engine) {
  // statement text -> { name, paramTypes }, least recently used first
  const statements = new Map();
  let named = 0;
  // a transaction block changed the schema: its rollback restores the old one under the statements prepared since
  let changedInTransaction = false;
  const exchange = (parts, options) => engine.execProtocol(concat(parts), options);

  async function forget(texts) {
    const closes = texts.map((text) => serialize.close({ type: 'S', name: statements.get(text).name }));
    for (const text of texts) statements.delete(text);
    await exchange([...closes, serialize.sync()], { syncToFs: false, throwOnError: false });
  }

  async function prepare(text) {
    const name = 's' + String(++named);
    const { messages } = await exchange([serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()], { syncToFs: false });
    const parameters = messages.find((message) => message.name === 'parameterDescription');
    const statement = { name, paramTypes: parameters ? parameters.dataTypeIDs : [] };
    statements.set(text, statement);
    if (statements.size > STATEMENTS_KEPT) await forget([statements.keys().next().value]);
    return statement;
  }

  async function run(text, params) {
    let statement = statements.get(text);
    if (statement) {
      statements.delete(text);
      statements.set(text, statement);
    } else {
      statement = await prepare(text);
    }
    const values = params.map((value, at) => {
      if (value === null || value === undefined) return null;
      const serializer = engine.serializers[statement.paramTypes[at]];
      return serializer ? serializer(value) : value.toString();
    });
    // the portal is described on every run: what a statement such as FETCH returns is known only then
    const portal = [serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
    const { messages } = await exchange(portal, { syncToFs: true });
    const { rows, affectedRows, tag, status } = resultOf(messages, engine.parsers);
    if (SCHEMA_CHANGE.test(tag)) {
      await forget([...statements.keys()]);
      changedInTransaction = status !== 'I';
    } else if (status === 'I' && changedInTransaction) {
      // ended by anything but its own commit (a rollback, or a commit that failed and rolled it back)
      changedInTransaction = false;
      if (tag !== 'COMMIT') await forget([...statements.keys()]);
    }
    return { rows, affectedRows };
  }

  return async function query(text, params) {
    if (text.length > LONGEST_KEPT) return engine.query(text, params);
    try {
      return await run(text, params);
    } catch (error) {
      // as PGlite's own query marks its errors
      if (error instanceof DatabaseError) {
        error.query = text;
        error.params = params;
      }
      throw error;
    }
  };
}

async function serve(engine, query, request) {
  if (request.op === 'close') {
    await engine.close();
    parentPort.postMessage({ id: request.id, rows: [] });
    return;
  }
  let reply;
  try {
    const result = await query(request.sql, revive(request.params, request.objects));
    reply = { id: request.id, rows: result.rows, affectedRows: result.affectedRows };
  } catch (error) {
    reply = { id: request.id, error: wireError(error) };
  }
  try {
    parentPort.postMessage(reply);
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: wireError(error) });
  }
}

// loading and compiling start at once; the data directory comes with the first message
const compiling =
  workerData.wasmModule !== undefined
    ? Promise.resolve(workerData.wasmModule)
    : WebAssembly.compile(readFileSync(workerData.wasmPath)).then((wasmModule) => {
        parentPort.postMessage({ compiled: wasmModule });
        return wasmModule;
      });
compiling.catch(() => undefined);

parentPort.once('message', ({ open }) => {
  compiling
    .then((wasmModule) => PGlite.create({ dataDir: open.dataDir, loadDataDir: open.loadDataDir, wasmModule }))
    .then(
      (engine) => {
        const query = createStatements(engine);
        let tail = Promise.resolve();
        parentPort.on('message', (request) => {
          tail = tail.then(() => serve(engine, query, request));
        });
        parentPort.postMessage({ ready: true });
      },
      (error) => parentPort.postMessage({ failed: wireError(error) }),
    );
});
`;
