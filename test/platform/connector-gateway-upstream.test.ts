import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, EmptyResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/telemetry/logger.js';
import { createUpstreamPool, type UpstreamPool } from '../../src/platform/connector-gateway/upstream.js';
import { createUpstreamTransports } from '../../src/platform/connectors/mcp-transport.js';
import type { ConnectorRow } from '../../src/platform/connectors/store.js';

/** An MCP server with sessions (the official SDK), answering in SSE streams or in JSON, whose tools show each path of a forwarded call. */
async function startUpstream(json: boolean) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const seen = { sessions: 0, cancelled: 0, headers: [] as (string | undefined)[] };
  const http: HttpServer = createServer((request, response) => {
    seen.headers.push(request.headers['x-api-key'] as string | undefined);
    const id = request.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return void known.handleRequest(request, response);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: json,
      onsessioninitialized: (sessionId) => {
        seen.sessions += 1;
        sessions.set(sessionId, transport);
      },
    });
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level server answers a JSON-RPC error, which McpServer turns into an isError result
    const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
      const { name } = call.params;
      if (name === 'echo') return { content: [{ type: 'text', text: String(call.params.arguments?.message) }], _meta: { upstream: true } };
      if (name === 'fail') throw new McpError(ErrorCode.InvalidParams, 'no such issue', { issue: 42 });
      if (name === 'ask') {
        await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
        return { content: [{ type: 'text', text: 'pinged the caller' }] };
      }
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      if (extra.signal.aborted) seen.cancelled += 1;
      return { content: [] };
    });
    void server.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    seen,
    connector: { id: randomUUID(), endpoint: `http://127.0.0.1:${String(port)}/mcp`, transport: 'streamable-http', allow_private_ips: true, updated_at: new Date() } as ConnectorRow,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())).finally(() => http.closeAllConnections()),
  };
}

describe.each([['SSE', false] as const, ['JSON', true] as const])('a tools/call forwarded over a pooled session (answers in %s)', (_mode, json) => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let pool: UpstreamPool;
  const headers = { 'x-api-key': 'the-credential' };

  beforeAll(async () => {
    upstream = await startUpstream(json);
    pool = createUpstreamPool({ transports: createUpstreamTransports(), logger: silentLogger, callTimeoutMs: 1_000 });
  });
  afterAll(async () => {
    await pool.close();
    await upstream.close();
  });

  it('gives the upstream result as it is, on one session, with the credential headers', async () => {
    const results = await Promise.all(['a', 'b', 'c'].map((message) => pool.callTool(upstream.connector, headers, { name: 'echo', arguments: { message } })));
    expect(results).toEqual(['a', 'b', 'c'].map((text) => ({ content: [{ type: 'text', text }], _meta: { upstream: true } })));
    expect(await pool.callTool(upstream.connector, headers, { name: 'echo', arguments: { message: 'again' } })).toMatchObject({ content: [{ text: 'again' }] });
    expect(upstream.seen.sessions).toBeLessThanOrEqual(3);
    expect(upstream.seen.headers.every((value) => value === 'the-credential')).toBe(true);
  });

  it('passes on an upstream JSON-RPC error with its code, message and data', async () => {
    const failed = await pool.callTool(upstream.connector, headers, { name: 'fail' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({ code: ErrorCode.InvalidParams, data: { issue: 42 } });
    expect((failed as McpError).message).toContain('no such issue');
  });

  // an upstream answering in JSON cannot send requests of its own while it works on a call
  if (!json) it('answers a ping the upstream sends while it works on the call', async () => {
    expect(await pool.callTool(upstream.connector, headers, { name: 'ask' })).toEqual({ content: [{ type: 'text', text: 'pinged the caller' }] });
  });

  it('times out with the SDK client\u2019s error and cancels the request upstream', async () => {
    const failed = await pool.callTool(upstream.connector, headers, { name: 'slow' }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: ErrorCode.RequestTimeout });
    await expect.poll(() => upstream.seen.cancelled, { timeout: 5_000 }).toBe(1);
  });
});
