import { Type, type Static } from '@sinclair/typebox';
import { ref } from '../../core/http/schemas.js';

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

export const AiPolicyDecisionSchema = Type.Object(
  {
    decision: Type.Union([Type.Literal('allowed'), Type.Literal('denied')], { description: 'what the AI policies of the gateway decided for the caller' }),
    policies: Type.Array(Type.String(), { description: 'the names of the AI policies the caller matched' }),
  },
  { additionalProperties: false, description: 'the AI policy decision at admission (PLATFORM-API Part 5 rule 16)' },
);

export const UsageEventSchema = Type.Object(
  {
    ai_policy: AiPolicyDecisionSchema,
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
export type AiPolicyDecision = Static<typeof AiPolicyDecisionSchema>;

/* Reads of charges and usage events, the daily spend series and the spend export (PLATFORM-API Part 3 §4, §5). */

const Scope = Type.Union([Type.Literal('user'), Type.Literal('group')]);
const Instant = (description: string) => Type.String({ description: `${description}; RFC 3339, or a date YYYY-MM-DD meaning 00:00Z` });
const DateOnly = (description: string) => Type.String({ description: `${description}; a date YYYY-MM-DD` });
const Limit = (max: number) => Type.Integer({ minimum: 1, description: `default 50, at most ${max} (larger values are clamped)` });
const paging = (max: number) => ({
  cursor: Type.Optional(Type.String({ description: 'a next_cursor: the page after it' })),
  before: Type.Optional(Type.String({ description: 'a prev_cursor: the page before it' })),
  limit: Type.Optional(Limit(max)),
});
const window = {
  from: Type.Optional(Instant('event_time at or after this')),
  to: Type.Optional(Instant('event_time before this')),
  model: Type.Optional(Type.String({ description: 'the resolved catalog model' })),
};

export const ADMIN_MAX_LIMIT = 10_000;
export const OWN_MAX_LIMIT = 200;

export const ChargesQuerySchema = Type.Object(
  {
    ...window,
    scope: Type.Optional(Scope),
    subject_id: Type.Optional(Type.String({ description: 'OIDC subject (user charges) or group id (group charges)' })),
    auth_subject: Type.Optional(Type.String({ description: "the caller's OIDC subject" })),
    ...paging(ADMIN_MAX_LIMIT),
  },
  { additionalProperties: false },
);
export const OwnChargesQuerySchema = Type.Object({ ...window, ...paging(OWN_MAX_LIMIT) }, { additionalProperties: false });

export const UsageEventsQuerySchema = Type.Object(
  { ...window, auth_subject: Type.Optional(Type.String()), outcome: Type.Optional(UsageOutcomeSchema), ...paging(ADMIN_MAX_LIMIT) },
  { additionalProperties: false },
);
export const OwnUsageEventsQuerySchema = Type.Object({ ...window, outcome: Type.Optional(UsageOutcomeSchema), ...paging(OWN_MAX_LIMIT) }, { additionalProperties: false });

const cursors = {
  next_cursor: Type.Optional(Type.String({ description: 'absent on the last page' })),
  prev_cursor: Type.Optional(Type.String({ description: 'absent on the first page' })),
};
export const ChargePageSchema = Type.Object({ charges: Type.Array(ref(ChargeSchema)), ...cursors }, { description: 'newest first (event_time, then id, descending)' });
export const UsageEventPageSchema = Type.Object({ events: Type.Array(ref(UsageEventSchema)), ...cursors }, { description: 'newest first (event_time, then id, descending)' });

const seriesWindow = {
  from: Type.Optional(DateOnly('the first day; default today − 29, never before the retention horizon')),
  to: Type.Optional(DateOnly('the day after the last; default tomorrow, never later')),
  model: Type.Optional(Type.String()),
  granularity: Type.Optional(Type.Literal('day', { description: 'day, the only one the series has' })),
};
export const SeriesQuerySchema = Type.Object(
  { ...seriesWindow, scope: Type.Optional(Scope), subject_id: Type.Optional(Type.String({ description: 'OIDC subject (scope user) or group id (scope group)' })) },
  { additionalProperties: false },
);
export const OwnSeriesQuerySchema = Type.Object(seriesWindow, { additionalProperties: false });

export const SeriesSchema = Type.Object(
  {
    buckets: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), usd: Money }, { additionalProperties: false }), { description: 'every day of [from, to), "0.00" when nothing was charged' }),
    from: Type.String({ format: 'date', description: 'the first day served, after clamping' }),
    granularity: Type.Literal('day'),
    to: Type.String({ format: 'date', description: 'the day after the last served, after clamping' }),
  },
  { $id: 'SpendSeries', additionalProperties: false },
);

export const EXPORT_DIMENSIONS = ['user', 'model', 'provider'] as const;
export type ExportDimension = (typeof EXPORT_DIMENSIONS)[number];
export const EXPORT_GRANULARITIES = ['day', 'week', 'month'] as const;
export type ExportGranularity = (typeof EXPORT_GRANULARITIES)[number];

export const ExportQuerySchema = Type.Object(
  {
    group_by: Type.Optional(Type.String({ description: 'comma list of user, model, provider, each at most once; default user' })),
    granularity: Type.Optional(Type.Union(EXPORT_GRANULARITIES.map((granularity) => Type.Literal(granularity)), { description: 'day (default), week (buckets start on Mondays) or month' })),
    from: Type.Optional(Instant('charges at or after this; default today − 29, never before the retention horizon')),
    to: Type.Optional(Instant('charges before this; default tomorrow, never later')),
    model: Type.Optional(Type.String()),
    scope: Type.Optional(Scope),
    subject_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type ChargesQuery = Static<typeof ChargesQuerySchema>;
export type OwnChargesQuery = Static<typeof OwnChargesQuerySchema>;
export type UsageEventsQuery = Static<typeof UsageEventsQuerySchema>;
export type OwnUsageEventsQuery = Static<typeof OwnUsageEventsQuerySchema>;
export type ChargePage = Static<typeof ChargePageSchema>;
export type UsageEventPage = Static<typeof UsageEventPageSchema>;
export type SeriesQuery = Static<typeof SeriesQuerySchema>;
export type OwnSeriesQuery = Static<typeof OwnSeriesQuerySchema>;
export type Series = Static<typeof SeriesSchema>;
export type ExportQuery = Static<typeof ExportQuerySchema>;
