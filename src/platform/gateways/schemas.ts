import { Type, type Static } from '@sinclair/typebox';

export const GatewaySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    mcp_url: Type.String({ format: 'uri', description: "the gateway's MCP endpoint (Streamable HTTP), below the service's public base URL" }),
  },
  { $id: 'ConnectorGateway', additionalProperties: false },
);
export type Gateway = Static<typeof GatewaySchema>;

export const GatewayListSchema = Type.Object({ items: Type.Array(Type.Ref('ConnectorGateway')) }, { additionalProperties: false });
export type GatewayList = Static<typeof GatewayListSchema>;
