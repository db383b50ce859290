/**
 * `--explain` of the LLM gateway benchmark: where the time of the ways served by this process (the floor,
 * Toolyard) goes, read from Node's and undici's diagnostics channels. Per request:
 * - in the server: from its headers parsed to the last byte of its response handed to the kernel;
 * - turnaround: from a response's end to the start of the next request on the same connection, that is the
 *   load generator's reaction plus the server's delay in reading the request;
 * - Toolyard only, upstream send delay: from the upstream request's dispatch to undici writing its headers.
 * Warm-ups count too. Subscribing costs each request a few map operations: an explained run is for diagnosis,
 * not for the README's figures.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { percentile } from './harness.js';

export interface ExplainSamples {
  inServer: number[];
  turnaround: number[];
  upstreamSendDelay: number[];
}

type Message = Record<string, object | undefined>;

export const noSamples = (): ExplainSamples => ({ inServer: [], turnaround: [], upstreamSendDelay: [] });

const figures = (values: number[]) => (values.length === 0 ? null : { p50Ms: round(percentile(values, 50)), p90Ms: round(percentile(values, 90)), count: values.length });
const round = (ms: number) => Math.round(ms * 1000) / 1000;

export function explain(samples: ExplainSamples) {
  return { inServer: figures(samples.inServer), turnaround: figures(samples.turnaround), upstreamSendDelay: figures(samples.upstreamSendDelay) };
}

export function createExplainer() {
  let samples = noSamples();
  const startedAt = new WeakMap<object, number>();
  const lastEndOn = new WeakMap<object, number>();
  const dispatchedAt = new WeakMap<object, number>();
  const handlers: Record<string, (message: Message) => void> = {
    'http.server.request.start': ({ response, socket }) => {
      const now = performance.now();
      if (response) startedAt.set(response, now);
      const lastEnd = socket && lastEndOn.get(socket);
      if (lastEnd !== undefined) samples.turnaround.push(now - lastEnd);
    },
    'http.server.response.finish': ({ response, socket }) => {
      const now = performance.now();
      const started = response && startedAt.get(response);
      if (started !== undefined) samples.inServer.push(now - started);
      if (socket) lastEndOn.set(socket, now);
    },
    'undici:request:create': ({ request }) => {
      if (request) dispatchedAt.set(request, performance.now());
    },
    'undici:client:sendHeaders': ({ request }) => {
      const dispatched = request && dispatchedAt.get(request);
      if (dispatched !== undefined) samples.upstreamSendDelay.push(performance.now() - dispatched);
    },
  };
  const listeners = Object.entries(handlers).map(([name, handler]) => [name, (message: unknown) => handler(message as Message)] as const);
  for (const [name, listener] of listeners) subscribe(name, listener);
  return {
    /** What was seen since the last call. */
    take(): ExplainSamples {
      const taken = samples;
      samples = noSamples();
      return taken;
    },
    close() {
      for (const [name, listener] of listeners) unsubscribe(name, listener);
    },
  };
}
