import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Clock } from '../../core/clock.js';
import type { BudgetHold } from '../budgets/ledger.js';
import type { PricedModel } from '../pricing/catalog.js';
import type { UsageOutcome } from '../usage/schemas.js';
import { usageEvent, type GatewayRequest } from './event.js';
import type { Settlements } from './settlement.js';
import { createStreamRelay, type StreamRelay } from './stream-relay.js';
import { upstreamFailure, type ProviderUpstream } from './upstream.js';
import { createUsageTracker, type UsageTracker } from './usage-tracker.js';
import { sendGatewayError } from './wire.js';
import { isJsonObject } from '../../core/json-object.js';

/*
 * One admitted request's exchange with its upstream (PLATFORM-API Part 3 §1, §1.3): forwarded, relayed
 * (streams event by event), and settled once whatever happens — delivered, client gone (the upstream is
 * read to its end and charged in full), upstream cut (the last usage seen is charged), upstream error
 * (relayed unchanged, no charge), or no answer (502/504, no charge).
 */

type Json = Record<string, unknown>;

/** The highest status Fastify sends, and the highest HTTP defines a class for. */
const LAST_STATUS = 599;

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

/** The body sent upstream: as received, unless the model was named through an alias or an OpenAI stream must be told to report its usage. */
function upstreamBody(exchange: Exchange): Buffer | string {
  const { request, priced } = exchange;
  const renamed = request.format !== 'gemini' && request.requestedModel !== priced.model;
  const options = request.body.stream_options;
  const openAiStream = request.format === 'openai' && request.stream && !(isJsonObject(options) && options.include_usage === true);
  if (!renamed && !openAiStream) return request.rawBody;
  const body: Json = { ...request.body };
  if (renamed) body.model = priced.model;
  if (openAiStream) body.stream_options = { ...(isJsonObject(body.stream_options) ? body.stream_options : {}), include_usage: true };
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

  return {
    /**
     * Runs on undici's dispatch callbacks: a 2xx stream is relayed from the upstream's chunks to the client's
     * socket as they arrive (the reply is hijacked once the upstream's headers are in); any other answer is
     * kept whole and sent as the reply. Resolves once the reply is sent or hijacked.
     */
    forward(exchange: Exchange, reply: FastifyReply): Promise<FastifyReply> {
      const { request, priced, upstream } = exchange;
      const tracker = createUsageTracker(request.format, request.body);
      const client = watchClient(reply.raw);
      const streamOptions = request.body.stream_options;
      const dropUsageChunk = request.format === 'openai' && !(isJsonObject(streamOptions) && streamOptions.include_usage === true);

      return new Promise<FastifyReply>((resolve) => {
        let controller: Dispatcher.DispatchController | undefined;
        let timedOut = false;
        let ended = false;
        let status = 0;
        let contentType: string | undefined;
        let relay: StreamRelay | undefined;
        const kept: Buffer[] = [];

        /** Whether this is the exchange's first outcome: a late one (an abort's error after the time-out) is dropped. */
        const first = () => {
          if (ended) return false;
          ended = true;
          clearTimeout(timer);
          return true;
        };
        const timer = setTimeout(() => {
          timedOut = true;
          const reason = new Error(`no complete answer within ${String(upstreamTimeoutMs)} ms`);
          // not started yet: answered now, and aborted as soon as it starts
          if (controller) controller.abort(reason);
          else failed(reason);
        }, upstreamTimeoutMs);

        const endRelay = (cut: boolean) => {
          const leftBefore = client.gone();
          // a cut upstream cuts the client too: its SDK must not take a partial answer for a whole one
          if (cut) reply.raw.destroy();
          else {
            relay?.end();
            reply.raw.end();
          }
          void client.closed.then((endedAt) => {
            const outcome: UsageOutcome = leftBefore ? 'client_disconnect' : cut ? 'upstream_error' : client.gone() ? 'client_disconnect' : 'delivered';
            settle(exchange, tracker, outcome, status, endedAt, true);
          });
        };

        const failed = (error: unknown) => {
          if (!first()) return;
          if (relay) {
            endRelay(true);
            // a relay broken before its start resolved would leave the handler waiting
            return resolve(reply);
          }
          const timeout = upstreamFailure(error, timedOut) === 'timeout';
          settle(exchange, tracker, 'upstream_error', status, performance.now(), false);
          if (status === 0) {
            if (timeout) return resolve(sendGatewayError(reply, request.format, 504, 'upstream_timeout', `the provider ${upstream.name} sent no response headers for the model ${priced.model} within ${String(upstreamTimeoutMs)} ms`, request.eventId));
            const reason = error instanceof Error ? error.message : String(error);
            return resolve(sendGatewayError(reply, request.format, 502, 'upstream_unavailable', `the provider ${upstream.name} cannot be reached for the model ${priced.model} (${reason})`, request.eventId));
          }
          if (timeout) return resolve(sendGatewayError(reply, request.format, 504, 'upstream_timeout', `the provider ${upstream.name} did not finish its answer for the model ${priced.model} within ${String(upstreamTimeoutMs)} ms`, request.eventId));
          if (status > LAST_STATUS) return resolve(sendGatewayError(reply, request.format, 502, 'upstream_unavailable', `the provider ${upstream.name} answered for the model ${priced.model} with status ${String(status)}, which HTTP does not define`, request.eventId));
          resolve(sendGatewayError(reply, request.format, 502, 'upstream_unavailable', `the provider ${upstream.name} cut its answer for the model ${priced.model} short`, request.eventId));
        };

        /** A whole answer: relayed unchanged, charged only when 2xx. */
        const sendWhole = () => {
          const body = Buffer.concat(kept);
          const delivered = status >= 200 && status < 300;
          if (delivered) {
            try {
              tracker.observe(JSON.parse(body.toString('utf8')));
            } catch {
              // a 2xx that is not JSON reports no usage: nothing to charge
            }
          }
          void client.closed.then((endedAt) => settle(exchange, tracker, delivered ? (client.gone() ? 'client_disconnect' : 'delivered') : 'upstream_error', status, endedAt, delivered));
          if (contentType !== undefined) void reply.header('content-type', contentType);
          resolve(reply.code(status).send(body));
        };

        const startRelay = () => {
          void reply.header('cache-control', 'no-cache');
          if (contentType !== undefined) void reply.header('content-type', contentType);
          // first: from here on, a failure cuts the client's stream
          relay = createStreamRelay({ out: reply.raw, tracker, dropUsageChunk, clientGone: client.gone });
          reply.hijack();
          // the headers set so far (X-Request-Id among them), as Fastify would have written them
          if (!reply.raw.destroyed) reply.raw.writeHead(status, reply.getHeaders() as OutgoingHttpHeaders);
          resolve(reply);
        };

        /**
         * A callback that throws is a fault of the gateway's, not the upstream's: undici would end the exchange
         * as an upstream failure and say nothing. It is logged, and the client is answered (or its stream cut)
         * and the request settled as an upstream error, so that neither waits for ever; thrown on, undici drops
         * the connection, whose state is unknown.
         */
        const broke = (error: unknown): never => {
          logger.error({ err: error, eventId: request.eventId }, 'the LLM gateway failed relaying an upstream answer');
          // the fault is the exchange's outcome, even when it broke the handling of the upstream's end
          ended = false;
          failed(error);
          throw error;
        };

        const handler: Dispatcher.DispatchHandler = {
          onRequestStart(started) {
            controller = started;
            if (timedOut) started.abort(new Error(`no answer within ${String(upstreamTimeoutMs)} ms`));
          },
          onResponseStart(started, statusCode, headers) {
            if (ended) return;
            status = statusCode;
            if (status > LAST_STATUS) {
              // no client could read it on (and Fastify would throw on it): the rest is not read
              const error = new Error(`the upstream answered with status ${String(status)}`);
              failed(error);
              return started.abort(error);
            }
            const type = headers['content-type'];
            contentType = typeof type === 'string' ? type : undefined;
            if (!(status >= 200 && status < 300 && request.stream)) return;
            try {
              startRelay();
            } catch (error) {
              broke(error);
            }
          },
          onResponseData(started, chunk) {
            if (ended) return;
            if (!relay) return void kept.push(chunk);
            try {
              relay.data(started, chunk);
            } catch (error) {
              broke(error);
            }
          },
          onResponseEnd() {
            if (!first()) return;
            try {
              if (relay) endRelay(false);
              else sendWhole();
            } catch (error) {
              broke(error);
            }
          },
          onResponseError(_controller, error) {
            failed(error);
          },
        };

        try {
          upstream.dispatch(
            { format: request.format, model: priced.model, ...(request.geminiMethod !== undefined && { geminiMethod: request.geminiMethod }), headers: request.headers, body: upstreamBody(exchange) },
            handler,
          );
        } catch (error) {
          failed(error);
        }
      });
    },
  };
}
