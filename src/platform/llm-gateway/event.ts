import type { IncomingHttpHeaders } from 'node:http';
import type { WireFormat } from '../keys/gateway-auth.js';
import type { UsageEvent, UsageOutcome } from '../usage/schemas.js';
import type { GatewayCaller } from '../identity/callers.js';
import type { ModelAdmission } from '../ai-policies/enforcement.js';

/** One gateway request from the moment its caller is known (checks 1–3 passed). */
export interface GatewayRequest {
  /** The usage event id and the response's X-Request-Id. */
  eventId: string;
  /** Admission time. */
  at: Date;
  /** `performance.now()` when the request came in (duration_ms). */
  startedAt: number;
  /** The path template, e.g. `/llm/v1beta/models/{model}:streamGenerateContent`. */
  route: string;
  format: WireFormat;
  requestedModel: string;
  interactionId: string;
  caller: GatewayCaller;
  /** Admission step 6 (PLATFORM-API Part 5 rule 16), decided once the caller is known; every event records it. */
  modelAdmission: ModelAdmission;
  body: Record<string, unknown>;
  /** The client's headers (the upstream gets a few of them). */
  headers: IncomingHttpHeaders;
  /** The body as received (forwarded as is unless a rule changes it). */
  rawBody: Buffer;
  stream: boolean;
  /** Gemini routes: `generateContent` or `streamGenerateContent`. */
  geminiMethod?: string;
}

export interface EventOutcome {
  outcome: UsageOutcome;
  /** The resolved catalog model; the requested name when unpriceable. */
  model: string;
  /** `""` when unpriceable. */
  provider: string;
  upstreamStatus: number;
  rawUsage: Record<string, unknown> | null;
  durationMs: number;
  ingestTime: Date;
}

/** The usage event of a request (PLATFORM-API Part 3 §1.4): every field present. */
export function usageEvent(request: GatewayRequest, outcome: EventOutcome): UsageEvent {
  const { caller } = request;
  return {
    ai_policy: request.modelAdmission.aiPolicy,
    auth_issuer: caller.issuer,
    auth_subject: caller.subject,
    duration_ms: Math.max(0, Math.round(outcome.durationMs)),
    event_time: request.at.toISOString(),
    id: request.eventId,
    ingest_time: outcome.ingestTime.toISOString(),
    interaction_id: request.interactionId,
    model: outcome.model,
    outcome: outcome.outcome,
    platform_groups: caller.groupIds,
    platform_user_id: caller.userId,
    provider: outcome.provider,
    raw_usage: outcome.rawUsage,
    requested_model: request.requestedModel,
    route: request.route,
    upstream_status: outcome.upstreamStatus,
    virtual_key_id: caller.keyId,
  };
}
