import { Type, type Static } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });

/** The most names a connection's exception list holds. */
export const MAX_EXCEPTIONS = 500;

const ExceptionList = Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
  maxItems: MAX_EXCEPTIONS,
  description: 'upstream tool names, unique, at most 500: the tools disabled (tools_enabled_by_default true) or the only ones enabled (false)',
});

export const ConnectionSchema = Type.Object(
  {
    connector_id: Uuid,
    created_at: Timestamp,
    enabled: Type.Boolean(),
    gateway_id: Type.String(),
    id: Uuid,
    tools_enabled_by_default: Type.Boolean(),
    tools_exception_list: Type.Array(Type.String()),
    updated_at: Timestamp,
    user_id: Uuid,
  },
  { $id: 'Connection', additionalProperties: false },
);
export type Connection = Static<typeof ConnectionSchema>;

export const ConnectionPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('Connection')), next_cursor: Type.Optional(Type.String()), prev_cursor: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const CreateConnectionBodySchema = Type.Object(
  {
    gateway_id: Type.String({ minLength: 1, maxLength: 63 }),
    connector_id: Uuid,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    tools_enabled_by_default: Type.Optional(Type.Boolean({ default: true })),
    tools_exception_list: Type.Optional(ExceptionList),
  },
  { additionalProperties: false },
);
export type CreateConnectionBody = Static<typeof CreateConnectionBodySchema>;

export const EnabledBodySchema = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
export type EnabledBody = Static<typeof EnabledBodySchema>;

export const ToolsBodySchema = Type.Object({ tools_enabled_by_default: Type.Boolean(), tools_exception_list: ExceptionList }, { additionalProperties: false });
export type ToolsBody = Static<typeof ToolsBodySchema>;

export const ConnectionParamsSchema = Type.Object({ id: Uuid }, { additionalProperties: false });
export const ConnectorConnectionsParamsSchema = Type.Object({ gateway_id: Type.String({ minLength: 1, maxLength: 63 }), id: Uuid }, { additionalProperties: false });
