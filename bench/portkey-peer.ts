/**
 * Starts `@portkey-ai/gateway` (the LLM benchmark's peer) in this process: `node --import tsx
 * bench/portkey-peer.ts <its start-server.js> [its options]`.
 *
 * Portkey 1.15.2 answers every streamed request with 500 "Something went wrong" on Node: it adds its
 * `x-portkey-*` headers to the upstream's fetch response, whose headers the fetch standard makes immutable,
 * and the `@hono/node-server` it runs on passes those very headers on (Portkey-AI/gateway issues 1389 and
 * 1550, "TypeError: immutable"). Its proposed fix (pull request 1551) copies the response into one with
 * headers of its own before adding to them; this does the same one step earlier, for every upstream
 * response, so that the peer is measured as its authors mean it to run and at the cost of that fix.
 */
const fetchUpstream = globalThis.fetch;
const FetchResponse = globalThis.Response;
globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
  const response = await fetchUpstream(...args);
  return new FetchResponse(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};

const entry = process.argv[2];
if (entry === undefined) throw new Error("usage: node --import tsx bench/portkey-peer.ts <@portkey-ai/gateway's build/start-server.js> [its options]");
await import(entry);
