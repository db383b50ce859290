import { Type, type Static } from '@sinclair/typebox';

/* Charges and usage events (platform document, records; PLATFORM-API Part 3 §1.4). */

const Timestamp = Type.String({ format: 'date-time' });
const Money = Type.String({ description: 'USD, a decimal string' });
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const USAGE_OUTCOMES = ['delivered', 'blocked_downstream', 'client_disconnect', 'upstream_error'] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];
export const UsageOutcomeSchema = Type.Union(USAGE_OUTCOMES.map((outcome) => Type.Literal(outcome)));

export const ChargeSchema = Type.Object(
  {
    auth_subject: Type.String({ description: "the caller's OIDC subject (a key's: its creator's)" }),
    charged_usd: Money,
    event_id: Type.String({ format: 'uuid', description: 'the usage event this charge settles' }),
    event_time: Type.String({ format: 'date-time', description: 'admission time; the periods are those containing it' }),
    id: Type.String({ format: 'uuid' }),
    interaction_id: Type.String({ description: 'X-Interaction-Id of the request, else the event id' }),
    model: Type.String(),
    period_end: Timestamp,
    period_start: Timestamp,
    pricing_catalog_id: Type.String({ format: 'uuid', description: 'the pricing catalog version in effect at admission' }),
    provider: Type.String(),
    scope: Type.Union([Type.Literal('user'), Type.Literal('group')]),
    subject_id: Type.String({ description: 'OIDC subject (user) or group id (group)' }),
  },
  { $id: 'Charge', additionalProperties: false },
);

export const UsageEventSchema = Type.Object(
  {
    auth_issuer: NullableString,
    auth_subject: Type.String(),
    duration_ms: Type.Integer({ minimum: 0 }),
    event_time: Type.String({ format: 'date-time', description: 'admission time' }),
    id: Type.String({ format: 'uuid', description: "the request's X-Request-Id" }),
    ingest_time: Timestamp,
    interaction_id: Type.String(),
    model: Type.String({ description: 'the resolved catalog model' }),
    outcome: UsageOutcomeSchema,
    platform_groups: Type.Array(Type.String({ format: 'uuid' }), { description: "the caller's groups at admission, sorted" }),
    platform_user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    provider: Type.String({ description: '"" when the model is unpriceable' }),
    raw_usage: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: "the provider's usage object (Anthropic's stream merged), null when none" }),
    requested_model: Type.String({ description: 'the model as the client sent it' }),
    route: Type.String({ description: 'the path template, e.g. /llm/v1/chat/completions' }),
    upstream_status: Type.Integer({ description: '0 without an upstream answer' }),
    virtual_key_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  },
  { $id: 'UsageEvent', additionalProperties: false },
);

export type Charge = Static<typeof ChargeSchema>;
export type UsageEvent = Static<typeof UsageEventSchema>;
