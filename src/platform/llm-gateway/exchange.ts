import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Clock } from '../../core/clock.js';
import type { BudgetHold } from '../budgets/ledger.js';
import type { PricedModel } from '../pricing/catalog.js';
import type { UsageOutcome } from '../usage/schemas.js';
import { usageEvent, type GatewayRequest } from './event.js';
import type { Settlements } from './settlement.js';
import { createSseReader, jsonOf, parseEvent, type SseEvents } from '../../core/http/sse.js';
import { upstreamFailure, type ProviderUpstream } from './upstream.js';
import { createUsageTracker, type UsageTracker } from './usage-tracker.js';
import { sendGatewayError } from './wire.js';

/*
 * One admitted request's exchange with its upstream (PLATFORM-API Part 3 §1, §1.3): forwarded, relayed
 * (streams event by event), and settled once whatever happens — delivered, client gone (the upstream is
 * read to its end and charged in full), upstream cut (the last usage seen is charged), upstream error
 * (relayed unchanged, no charge), or no answer (502/504, no charge).
 */

type Json = Record<string, unknown>;

export interface ExchangeOptions {
  clock: Clock;
  logger: Logger;
  settlements: Settlements;
  upstreamTimeoutMs: number;
}

export interface Exchange {
  request: GatewayRequest;
  priced: PricedModel;
  upstream: ProviderUpstream;
  hold: BudgetHold;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body sent upstream: as received, unless the model was named through an alias or an OpenAI stream must be told to report its usage. */
function upstreamBody(exchange: Exchange): Buffer | string {
  const { request, priced } = exchange;
  const renamed = request.format !== 'gemini' && request.requestedModel !== priced.model;
  const options = request.body.stream_options;
  const openAiStream = request.format === 'openai' && request.stream && !(isObject(options) && options.include_usage === true);
  if (!renamed && !openAiStream) return request.rawBody;
  const body: Json = { ...request.body };
  if (renamed) body.model = priced.model;
  if (openAiStream) body.stream_options = { ...(isObject(body.stream_options) ? body.stream_options : {}), include_usage: true };
  return JSON.stringify(body);
}

/** Whether the client's response ended before all of it was written, and when it closed. */
function watchClient(response: ServerResponse): { gone: () => boolean; closed: Promise<number> } {
  let gone = false;
  const closed = new Promise<number>((resolve) => {
    response.once('close', () => {
      gone = !response.writableFinished;
      resolve(performance.now());
    });
  });
  return { gone: () => gone, closed };
}

/**
 * Which stream events may carry usage (a key the trackers read, holding an object): only those are parsed.
 * OpenAI streams asked for their usage send `"usage":null` in every other chunk, so the value counts too.
 */
const MAY_CARRY_USAGE = /"(?:usage|usageMetadata|groundingMetadata)"\s*:\s*\{/;

/**
 * Whether an event must be parsed to read its usage. Usage keys and JSON punctuation are ASCII, so the event's
 * bytes read one byte a character (no UTF-8 decoding) are searched; an event of several data lines is parsed
 * whatever it holds, as its JSON may be split between them.
 */
function mayCarryUsage(bytes: Buffer, start: number, end: number): boolean {
  const text = bytes.toString('latin1', start, end);
  return text.indexOf('data:') !== text.lastIndexOf('data:') || MAY_CARRY_USAGE.test(text);
}

export function createExchanges(options: ExchangeOptions) {
  const { clock, logger, settlements, upstreamTimeoutMs } = options;

  const settle = (exchange: Exchange, tracker: UsageTracker, outcome: UsageOutcome, upstreamStatus: number, endedAt: number, charge: boolean) => {
    const { request, priced, hold } = exchange;
    const event = usageEvent(request, {
      outcome,
      model: priced.model,
      provider: priced.provider,
      upstreamStatus,
      rawUsage: tracker.raw(),
      durationMs: endedAt - request.startedAt,
      ingestTime: clock.now(),
    });
    settlements.settle({ hold, event, priced, usage: charge ? tracker.usage() : null });
  };

  /** Reads a stream to its end, relaying events while the client is there; the usage-only OpenAI chunk only when asked for. */
  const relayStream = async (exchange: Exchange, response: Dispatcher.ResponseData, out: PassThrough, tracker: UsageTracker, client: ReturnType<typeof watchClient>, timer: NodeJS.Timeout) => {
    const { request } = exchange;
    const options = isObject(request.body.stream_options) ? request.body.stream_options : {};
    const dropUsageChunk = request.format === 'openai' && options.include_usage !== true;
    const reader = createSseReader();
    /** The bytes to relay, in as few slices as can be: every event but OpenAI's usage-only chunk when the client did not ask for it. */
    const take = ({ bytes, ends }: SseEvents): Buffer[] => {
      const slices: Buffer[] = [];
      let relayFrom = 0;
      let start = 0;
      for (const end of ends) {
        if (mayCarryUsage(bytes, start, end)) {
          const event = parseEvent(bytes.toString('utf8', start, end));
          const data = event.data !== undefined && MAY_CARRY_USAGE.test(event.data) ? jsonOf(event) : undefined;
          if (data !== undefined) tracker.observe(data, event.event);
          if (dropUsageChunk && isObject(data) && isObject(data.usage) && Array.isArray(data.choices) && data.choices.length === 0) {
            if (start > relayFrom) slices.push(bytes.subarray(relayFrom, start));
            relayFrom = end;
          }
        }
        start = end;
      }
      if (start > relayFrom) slices.push(bytes.subarray(relayFrom, start));
      return slices;
    };
    const write = async (slices: Buffer[]) => {
      for (const slice of slices) {
        if (client.gone() || out.destroyed) return;
        if (out.write(slice)) continue;
        await new Promise<void>((resolve) => {
          const done = () => {
            out.off('drain', done);
            out.off('close', done);
            resolve();
          };
          out.on('drain', done);
          out.on('close', done);
        });
      }
    };
    let failed = false;
    try {
      for await (const chunk of response.body) await write(take(reader.push(chunk as Buffer)));
      const rest = reader.rest();
      if (rest) await write(take({ bytes: rest, ends: [rest.length] }));
    } catch {
      failed = true;
    }
    clearTimeout(timer);
    const leftBefore = client.gone();
    // a cut upstream cuts the client too: its SDK must not take a partial answer for a whole one
    if (failed) out.destroy();
    else out.end();
    const endedAt = await client.closed;
    const outcome: UsageOutcome = leftBefore ? 'client_disconnect' : failed ? 'upstream_error' : client.gone() ? 'client_disconnect' : 'delivered';
    settle(exchange, tracker, outcome, response.statusCode, endedAt, true);
  };

  return {
    async forward(exchange: Exchange, reply: FastifyReply): Promise<FastifyReply> {
      const { request, priced, upstream } = exchange;
      const tracker = createUsageTracker(request.format, request.body);
      const client = watchClient(reply.raw);
      const abort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, upstreamTimeoutMs);

      let response: Dispatcher.ResponseData;
      try {
        response = await upstream.send({
          format: request.format,
          model: priced.model,
          ...(request.geminiMethod !== undefined && { geminiMethod: request.geminiMethod }),
          headers: request.headers,
          body: upstreamBody(exchange),
          signal: abort.signal,
        });
      } catch (error) {
        clearTimeout(timer);
        settle(exchange, tracker, 'upstream_error', 0, performance.now(), false);
        if (upstreamFailure(error, timedOut) === 'timeout') {
          return sendGatewayError(reply, request.format, 504, 'upstream_timeout', `the provider ${upstream.name} sent no response headers for the model ${priced.model} within ${String(upstreamTimeoutMs)} ms`, request.eventId);
        }
        const reason = error instanceof Error ? error.message : String(error);
        return sendGatewayError(reply, request.format, 502, 'upstream_unavailable', `the provider ${upstream.name} cannot be reached for the model ${priced.model} (${reason})`, request.eventId);
      }

      const status = response.statusCode;
      const contentType = response.headers['content-type'];
      if (typeof contentType === 'string') void reply.header('content-type', contentType);
      void reply.code(status);

      if (status < 200 || status >= 300 || !request.stream) {
        let body: Buffer;
        try {
          body = Buffer.from(await response.body.arrayBuffer());
        } catch (error) {
          clearTimeout(timer);
          settle(exchange, tracker, 'upstream_error', status, performance.now(), false);
          void reply.removeHeader('content-type');
          if (upstreamFailure(error, timedOut) === 'timeout') {
            return sendGatewayError(reply, request.format, 504, 'upstream_timeout', `the provider ${upstream.name} did not finish its answer for the model ${priced.model} within ${String(upstreamTimeoutMs)} ms`, request.eventId);
          }
          return sendGatewayError(reply, request.format, 502, 'upstream_unavailable', `the provider ${upstream.name} cut its answer for the model ${priced.model} short`, request.eventId);
        }
        clearTimeout(timer);
        const delivered = status >= 200 && status < 300;
        if (delivered) {
          try {
            tracker.observe(JSON.parse(body.toString('utf8')));
          } catch {
            // a 2xx that is not JSON reports no usage: nothing to charge
          }
        }
        void client.closed.then((endedAt) => settle(exchange, tracker, delivered ? (client.gone() ? 'client_disconnect' : 'delivered') : 'upstream_error', status, endedAt, delivered));
        return reply.send(body);
      }

      const out = new PassThrough();
      void reply.header('cache-control', 'no-cache');
      relayStream(exchange, response, out, tracker, client, timer).catch((error: unknown) => {
        out.destroy();
        logger.error({ err: error, eventId: request.eventId }, 'cannot relay an LLM gateway stream');
      });
      return reply.send(out);
    },
  };
}
