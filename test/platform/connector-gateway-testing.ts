import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestPlatform } from './helpers.js';

/** The platform on a real local port (the SDK clients need one); returns its base URL. */
export async function listenLocally(platform: TestPlatform): Promise<string> {
  await platform.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = platform.http.server.address() as AddressInfo;
  return `http://127.0.0.1:${String(port)}`;
}

/** The official SDK client, connected to a gateway's MCP endpoint as the caller of `headers`. */
export async function connectAs(base: string, headers: Record<string, string>, gatewayId = 'default'): Promise<Client> {
  const client = new Client({ name: 'connector-gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/connector-gateway/v1/gateways/${gatewayId}/mcp`), { requestInit: { headers } }));
  return client;
}

export const bearer = (credential: string): Record<string, string> => ({ authorization: `Bearer ${credential}` });
/** The record of one call (by its id) among the caller's tool-call activity through a connector (GET /v1/me/tool-usage/calls). */
export async function recordsOf(platform: TestPlatform, token: string, connectorId: string, callId: string): Promise<Record<string, unknown>[]> {
  const page = await platform.call<{ records: Record<string, unknown>[] }>('GET', `/v1/me/tool-usage/calls?gateway_id=default&connector_id=${connectorId}&limit=500`, { token });
  if (page.status !== 200) throw new Error(`cannot read my tool calls: ${page.text}`);
  return page.body.records.filter((record) => record.call_id === callId);
}
