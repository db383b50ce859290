import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/telemetry/logger.js';
import { createMcpEndpoint } from './mcp.js';
import type { ConnectorCaller } from './tools.js';

const caller: ConnectorCaller = {
  user: { userId: 'u', subject: 's', issuer: null, groupIds: [], groups: [], email: null, keyId: null, claims: { sub: 's' } },
  credential: { token: null, issuer: null },
};

function endpoint() {
  const seen: string[] = [];
  const mcp = createMcpEndpoint({
    listing: { list: () => Promise.resolve([{ name: 'a__echo' }]) },
    calls: {
      call: (_caller, gatewayId, params) => {
        seen.push(`${gatewayId}:${JSON.stringify(params)}`);
        return Promise.resolve({ result: { content: [] } });
      },
    },
    logger: silentLogger,
  });
  return { mcp, seen };
}

describe('the MCP endpoint\u2019s JSON-RPC handling', () => {
  it('answers initialize with the client\u2019s protocol version when supported, else the latest, and tools only', async () => {
    const { mcp } = endpoint();
    const known = await mcp.handle(caller, 'default', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26' } });
    expect(known).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: expect.objectContaining({ protocolVersion: '2025-03-26', capabilities: { tools: { listChanged: false } } }) as object } });
    const unknown = await mcp.handle(caller, 'default', { jsonrpc: '2.0', id: 'x', method: 'initialize', params: { protocolVersion: '1999-01-01' } });
    expect(unknown.status === 200 && (unknown.body.result as { protocolVersion: string }).protocolVersion).not.toBe('1999-01-01');
  });

  it('acknowledges notifications with 202, and refuses batches and non-JSON-RPC bodies with 400', async () => {
    const { mcp } = endpoint();
    expect(await mcp.handle(caller, 'default', { jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ status: 202 });
    const batch = await mcp.handle(caller, 'default', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(batch.status === 400 && (batch.body.error as { code: number }).code).toBe(-32600);
    const plain = await mcp.handle(caller, 'default', { id: 1, method: 'ping' });
    expect(plain.status === 400 && (plain.body.error as { code: number }).code).toBe(-32600);
  });

  it('serves ping, tools/list and tools/call, and answers other methods with method not found', async () => {
    const { mcp, seen } = endpoint();
    expect(await mcp.handle(caller, 'default', { jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(await mcp.handle(caller, 'default', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'a__echo' }] } } });
    await mcp.handle(caller, 'eu', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'a__echo', arguments: {} } });
    expect(seen).toEqual(['eu:{"name":"a__echo","arguments":{}}']);
    const other = await mcp.handle(caller, 'default', { jsonrpc: '2.0', id: 4, method: 'prompts/list' });
    expect(other.status === 200 && (other.body.error as { code: number }).code).toBe(-32601);
  });
});
