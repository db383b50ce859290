import { Type, type Static } from '@sinclair/typebox';

/* Discovered MCP servers (document "Discovered server"; PLATFORM-API Part 4 §6). */

export const DiscoveredServerSchema = Type.Object(
  {
    allow_private_ips: Type.Boolean({ description: "true iff the endpoint is the object's own in-cluster Service name (a connector for it must allow private IPs)" }),
    endpoint: Type.String({ description: 'toolyard.dev/registry-url, else the Service DNS name and first port (/mcp)' }),
    existing_connectors: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }, { additionalProperties: false }), {
      description: "the gateway's connectors already holding this endpoint (compared normalised), by name",
    }),
    group: Type.String({ description: 'the toolyard.dev/mcp-group annotation, or ""' }),
    health: Type.String({ description: 'status.phase of the object, or Unknown' }),
    name: Type.String({ description: "the object's name" }),
    namespace: Type.String(),
    transport: Type.Union([Type.Literal('streamable-http'), Type.Literal('sse')]),
  },
  { $id: 'DiscoveredServer', additionalProperties: false },
);
export type DiscoveredServer = Static<typeof DiscoveredServerSchema>;

export const DiscoveredServerListSchema = Type.Object({ servers: Type.Array(Type.Ref('DiscoveredServer')) }, { additionalProperties: false });
export type DiscoveredServerList = Static<typeof DiscoveredServerListSchema>;
