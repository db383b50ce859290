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
 */
export const PGLITE_THREAD_SOURCE = String.raw`
const { readFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);

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

async function serve(engine, request) {
  if (request.op === 'close') {
    await engine.close();
    parentPort.postMessage({ id: request.id, rows: [] });
    return;
  }
  let reply;
  try {
    const result = await engine.query(request.sql, revive(request.params, request.objects));
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
        let tail = Promise.resolve();
        parentPort.on('message', (request) => {
          tail = tail.then(() => serve(engine, request));
        });
        parentPort.postMessage({ ready: true });
      },
      (error) => parentPort.postMessage({ failed: wireError(error) }),
    );
});
`;
