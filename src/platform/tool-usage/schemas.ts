import { Type, type Static } from '@sinclair/typebox';
import { ref } from '../../core/http/schemas.js';

/* The tool-call usage record (platform document, records) and its reads and export (PLATFORM-API Part 4 §8, §9). */

const Timestamp = Type.String({ format: 'date-time' });
const literals = <T extends string>(values: readonly T[], description?: string) => Type.Union(values.map((value) => Type.Literal(value)), description === undefined ? {} : { description });

export const DECISIONS = ['allowed', 'denied'] as const;
export const OUTCOMES = ['ok', 'error'] as const;
export const BILLABLE_REASONS = ['delivered', 'denied_by_policy', 'disabled_by_user', 'upstream_error', 'gateway_error'] as const;

export const ToolCallUsageSchema = Type.Object(
  {
    billable: Type.Boolean({ description: 'allowed and ok' }),
    billable_reason: literals(BILLABLE_REASONS),
    call_id: Type.String({ format: 'uuid' }),
    category: literals(DECISIONS, "the decision's value (category = decision)"),
    connector_id: Type.String(),
    connector_name: Type.String({ description: "the connector's name when the call was served" }),
    decision: literals(DECISIONS),
    definition_version: Type.String({ description: "the connector's updated_at when the call was served (RFC 3339, milliseconds)" }),
    environment: Type.String({ description: "the serving process's connectorGateway.environment" }),
    gateway_id: Type.String(),
    groups: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }), { description: 'direct and inherited groups of the caller' }),
    occurred_at: Timestamp,
    outcome: literals(OUTCOMES, 'ok iff forwarded and not isError'),
    tool_name: Type.String({ description: 'the upstream tool name' }),
    user_email: Type.Union([Type.String(), Type.Null()]),
    user_id: Type.String(),
  },
  { $id: 'ToolCallUsage', additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });
const Limit = (max: number, fallback: number) => Type.Integer({ minimum: 1, description: `default ${fallback}, at most ${max} (larger values are clamped)` });
const window = {
  gateway_id: Type.String({ description: 'the gateway (its chain); required' }),
  environment: Type.Optional(Type.String({ description: 'only records of this environment' })),
  start: Type.Optional(Type.String({ description: 'RFC 3339; records at or after it (default: the first record)' })),
  end: Type.Optional(Type.String({ description: 'RFC 3339; records before it (default: now)' })),
};
const cursors = {
  next_cursor: Type.Optional(Type.String({ description: 'absent on the last page' })),
  prev_cursor: Type.Optional(Type.String({ description: 'absent on the first page' })),
};

export const ACTIVITY_MAX_LIMIT = 500;
export const EXPORT_MAX_LIMIT = 500;
export const TOP_MAX_LIMIT = 100;
export const DIMENSIONS = ['environment', 'tool', 'decision', 'connector'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export const WindowQuerySchema = Type.Object(window, { additionalProperties: false });
export const UserWindowQuerySchema = Type.Object(
  { ...window, start: Type.String({ description: 'RFC 3339; records at or after it' }), end: Type.String({ description: 'RFC 3339; records before it' }) },
  { additionalProperties: false },
);
export const ActivityQuerySchema = Type.Object(
  {
    ...window,
    connector_id: Type.String({ description: 'the connector; required' }),
    outcome: Type.Optional(literals(OUTCOMES)),
    decision: Type.Optional(literals(DECISIONS)),
    cursor: Type.Optional(Type.String({ description: 'a next_cursor: older records' })),
    before: Type.Optional(Type.String({ description: 'a prev_cursor: newer records' })),
    limit: Type.Optional(Limit(ACTIVITY_MAX_LIMIT, 50)),
  },
  { additionalProperties: false },
);
export const ExportQuerySchema = Type.Object(
  { ...window, cursor: Type.Optional(Type.String({ description: 'a next_cursor: the records after it' })), limit: Type.Optional(Limit(EXPORT_MAX_LIMIT, 50)) },
  { additionalProperties: false },
);
export const TopQuerySchema = Type.Object({ ...window, limit: Type.Optional(Limit(TOP_MAX_LIMIT, 10)) }, { additionalProperties: false });
export const TimeseriesQuerySchema = Type.Object(
  { ...window, dimension: Type.Optional(literals(DIMENSIONS, 'breaks each bucket down by environment, tool (<connector_id>/<tool_name>), decision or connector (connector_id)')) },
  { additionalProperties: false },
);
export const IdParamsSchema = Type.Object({ id: Type.String() });

const Point = Type.Object({ bucket_start: Timestamp, tool_call_count: Count }, { additionalProperties: false });

export const ConnectorUsageSchema = Type.Object(
  {
    connector_id: Type.String(),
    connector_name: Type.Union([Type.String(), Type.Null()], { description: 'as of its latest record in the window; null without records' }),
    group_series: Type.Array(
      Type.Object({ group: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }), points: Type.Array(Point) }, { additionalProperties: false }),
      { description: "one series per group of the callers (a record counts in each of its groups), by group name then id" },
    ),
    tool_call_count: Count,
  },
  { additionalProperties: false },
);
export const ActivityPageSchema = Type.Object({ records: Type.Array(ref(ToolCallUsageSchema)), ...cursors }, { additionalProperties: false, description: 'newest first (occurred_at, then record id)' });

export const CheckpointSchema = Type.Object(
  {
    chain_hash: Type.String(),
    chain_id: Type.String(),
    hash_alg: Type.Literal('SHA-256'),
    key_id: Type.String(),
    sequence: Count,
    sig_alg: Type.Literal('ES256'),
    signature: Type.String({ description: 'JWS with a detached payload over JCS {chain_hash, chain_id, sequence, signed_at}' }),
    signed_at: Timestamp,
  },
  { additionalProperties: false },
);
export const ExportRecordSchema = Type.Object(
  { chain_id: Type.String(), id: Type.String({ format: 'uuid' }), prev_hash: Type.String(), record_hash: Type.String(), sequence: Count, usage: ref(ToolCallUsageSchema) },
  { additionalProperties: false },
);
export const ExportPageSchema = Type.Object(
  { checkpoints: Type.Array(CheckpointSchema), next_cursor: Type.Optional(Type.String({ description: 'absent on the last page' })), records: Type.Array(ExportRecordSchema) },
  { additionalProperties: false, description: 'records by sequence, with the checkpoints signed in the range of the page' },
);
export const TopConnectorsSchema = Type.Object(
  { connectors: Type.Array(Type.Object({ connector_id: Type.String(), connector_name: Type.String(), tool_call_count: Count }, { additionalProperties: false })) },
  { additionalProperties: false },
);
export const TopToolsSchema = Type.Object(
  { tools: Type.Array(Type.Object({ connector_id: Type.String(), connector_name: Type.String(), tool_call_count: Count, tool_name: Type.String() }, { additionalProperties: false })) },
  { additionalProperties: false },
);
export const SummarySchema = Type.Object({ active_user_count: Count, tool_call_count: Count }, { additionalProperties: false });
export const TimeseriesSchema = Type.Object(
  {
    bucket_width_seconds: Type.Integer(),
    buckets: Type.Array(
      Type.Object(
        {
          breakdown: Type.Optional(Type.Array(Type.Object({ key: Type.String(), tool_call_count: Count }, { additionalProperties: false }), { description: 'the keys counted in the bucket, count descending then key' })),
          bucket_start: Timestamp,
          tool_call_count: Count,
        },
        { additionalProperties: false },
      ),
    ),
    dimension: Type.Optional(literals(DIMENSIONS)),
  },
  { additionalProperties: false },
);
export const UserUsageSchema = Type.Object(
  {
    connectors: Type.Array(
      Type.Object(
        {
          connector_id: Type.String(),
          connector_name: Type.String(),
          last_activity: Timestamp,
          tool_call_count: Count,
          tools: Type.Array(Type.Object({ last_activity: Timestamp, tool_call_count: Count, tool_name: Type.String() }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
    last_activity: Type.Union([Timestamp, Type.Null()]),
    series: Type.Array(Point),
    tool_call_count: Count,
    user_id: Type.String(),
  },
  { additionalProperties: false },
);

export type WindowQuery = Static<typeof WindowQuerySchema>;
export type UserWindowQuery = Static<typeof UserWindowQuerySchema>;
export type ActivityQuery = Static<typeof ActivityQuerySchema>;
export type ExportQuery = Static<typeof ExportQuerySchema>;
export type TopQuery = Static<typeof TopQuerySchema>;
export type TimeseriesQuery = Static<typeof TimeseriesQuerySchema>;
export type ConnectorUsage = Static<typeof ConnectorUsageSchema>;
export type ActivityPage = Static<typeof ActivityPageSchema>;
export type Checkpoint = Static<typeof CheckpointSchema>;
export type ExportPage = Static<typeof ExportPageSchema>;
export type TopConnectors = Static<typeof TopConnectorsSchema>;
export type TopTools = Static<typeof TopToolsSchema>;
export type Summary = Static<typeof SummarySchema>;
export type Timeseries = Static<typeof TimeseriesSchema>;
export type UserUsage = Static<typeof UserUsageSchema>;
