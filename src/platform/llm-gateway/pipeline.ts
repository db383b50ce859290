import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.js';
import type { WireFormat } from '../keys/gateway-auth.js';
import type { ModelAdmission } from '../ai-policies/enforcement.js';
import type { Admitter } from './admission.js';
import { usageEvent, type GatewayRequest } from './event.js';
import type { createExchanges } from './exchange.js';
import type { CallerIdentities } from '../identity/callers.js';
import type { Settlements } from './settlement.js';
import { sendGatewayError } from './wire.js';

/*
 * A model request after checks 1–2 (body, credential): check 3 (the caller's directory user), checks 4–8
 * (admission), then the exchange. A refusal from check 4 on writes a blocked_downstream event.
 */

export interface PipelineOptions {
  clock: Clock;
  identities: CallerIdentities;
  admitter: Admitter;
  exchanges: ReturnType<typeof createExchanges>;
  settlements: Settlements;
  /** Admission step 6: what the AI policies decide for the caller's claims (answered from memory). */
  modelPolicy: (claims: Readonly<Record<string, unknown>>) => ModelAdmission;
}

export interface RouteCall {
  format: WireFormat;
  /** The path template (the event's `route`). */
  route: string;
  requestedModel: string;
  stream: boolean;
  geminiMethod?: string;
}

export function createPipeline(options: PipelineOptions) {
  const { clock, identities, admitter, exchanges, settlements, modelPolicy } = options;
  return async (call: RouteCall, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const startedAt = performance.now();
    const principal = request.gatewayPrincipal;
    if (!principal) throw new Error('the gateway authentication step did not run');
    const verdict = await identities.resolve(principal);
    if (!verdict.ok) return sendGatewayError(reply, call.format, 401, verdict.code, verdict.detail, request.id);

    const interaction = request.headers['x-interaction-id'];
    const gateway: GatewayRequest = {
      eventId: request.id,
      at: clock.now(),
      startedAt,
      route: call.route,
      format: call.format,
      requestedModel: call.requestedModel,
      interactionId: typeof interaction === 'string' && interaction !== '' ? interaction : request.id,
      caller: verdict.caller,
      modelAdmission: modelPolicy(verdict.caller.claims),
      headers: request.headers,
      body: request.body as Record<string, unknown>,
      rawBody: request.llmRawBody ?? Buffer.alloc(0),
      stream: call.stream,
      ...(call.geminiMethod !== undefined && { geminiMethod: call.geminiMethod }),
    };
    const admission = await admitter.admit(gateway);
    if (admission.admitted) return exchanges.forward({ request: gateway, priced: admission.priced, upstream: admission.upstream, hold: admission.hold }, reply);

    const { priced } = admission;
    const event = usageEvent(gateway, {
      outcome: 'blocked_downstream',
      model: priced?.model ?? call.requestedModel,
      provider: priced?.provider ?? '',
      upstreamStatus: 0,
      rawUsage: null,
      durationMs: performance.now() - startedAt,
      ingestTime: clock.now(),
    });
    settlements.settle({ hold: null, event, priced, usage: null });
    return sendGatewayError(reply, call.format, admission.status, admission.code, admission.detail, request.id);
  };
}
