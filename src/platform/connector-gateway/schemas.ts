import { Type, type Static } from '@sinclair/typebox';

/* The connector gateway's REST records (document "Connector gateway"; PLATFORM-API Part 4 §7). */

export const ConnectorIdParamsSchema = Type.Object(
  { connector_id: Type.String({ format: 'uuid', description: 'a connector id (UUID)' }) },
  { additionalProperties: false },
);
export type ConnectorIdParams = Static<typeof ConnectorIdParamsSchema>;

export const GatewayIdParamsSchema = Type.Object({ gateway_id: Type.String({ description: 'a configured connector gateway id' }) }, { additionalProperties: false });
export type GatewayIdParams = Static<typeof GatewayIdParamsSchema>;

export const GatewayToolSchema = Type.Object(
  {
    description: Type.Union([Type.String(), Type.Null()]),
    destructive_hint: Type.Union([Type.Boolean(), Type.Null()], { description: "the upstream's annotations.destructiveHint; null when it sets none" }),
    input_schema: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: "the tool's JSON Schema for its arguments, as the upstream lists it" }),
    name: Type.String({ description: 'the upstream name (the MCP endpoint serves it as <tool prefix>__<name>)' }),
    read_only_hint: Type.Union([Type.Boolean(), Type.Null()], { description: "the upstream's annotations.readOnlyHint; null when it sets none" }),
  },
  { $id: 'ConnectorGatewayTool', additionalProperties: false },
);
export type GatewayTool = Static<typeof GatewayToolSchema>;

export const GatewayToolListSchema = Type.Object({ tools: Type.Array(Type.Ref('ConnectorGatewayTool')) }, { additionalProperties: false });
export type GatewayToolList = Static<typeof GatewayToolListSchema>;

export const CONNECTION_STATUSES = ['ready', 'needs_auth'] as const;

export const ConnectorStateSchema = Type.Object(
  {
    connector_id: Type.String({ format: 'uuid' }),
    enabled: Type.Boolean({ description: 'false only when the caller disabled the connector; true by default' }),
    connection_status: Type.Union(CONNECTION_STATUSES.map((status) => Type.Literal(status)), {
      description: 'needs_auth when serving the connector to this caller needs a credential the gateway cannot obtain (obo, cloud_sts, xaa, or a provider that did not issue the caller\u2019s token)',
    }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the caller last set the state; null in the default state' }),
  },
  { $id: 'ConnectorGatewayState', additionalProperties: false },
);
export type ConnectorState = Static<typeof ConnectorStateSchema>;

export const ConnectorStateBodySchema = Type.Object({ enabled: Type.Boolean({ description: 'true enables the connector for you, false disables it' }) }, { additionalProperties: false });
export type ConnectorStateBody = Static<typeof ConnectorStateBodySchema>;
