import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EVERYTHING_TRANSPORTS,
  proxyInFrontOfEverything,
  readRequestBody,
  startUpstream,
  testPolicy,
  type ProxiedEverything,
  type RunningUpstream,
} from './reverse-proxy-testing.js';
import { textOf } from './stdio-proxy-testing.js';
import { createReverseProxy } from './reverse-proxy.js';
import type { WorkloadProxy } from './types.js';
import type { ProxyPolicy } from './types.js';

const policy: Partial<ProxyPolicy> = {
  toolsFilter: ['echo', 'sum'],
  toolsOverride: { 'get-sum': { name: 'sum', description: 'Adds two numbers' } },
  rateLimit: { perUser: { maxTokens: 3, refillPeriod: '1h' } },
};

describe.each(EVERYTHING_TRANSPORTS)('reverse proxy middleware with server-everything over $transport', (everything) => {
  const { transport } = everything;
  let proxied: ProxiedEverything;
  let url: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    proxied = await proxyInFrontOfEverything(everything, testPolicy(policy));
    ({ url } = proxied);
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });

  afterAll(() => proxied.stop());

  const open = async (): Promise<{ client: Client; sessionId: () => string | undefined }> => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const endpoint = new URL(url);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- HTTP+SSE servers still exist and this proxy serves them
    const clientTransport = transport === 'sse' ? new SSEClientTransport(endpoint) : new StreamableHTTPClientTransport(endpoint);
    await client.connect(clientTransport);
    clients.push(client);
    return { client, sessionId: () => ('sessionId' in clientTransport ? clientTransport.sessionId : undefined) };
  };

  it('lists only the allowed tools, renamed and described as configured', async () => {
    const { client } = await open();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'sum']);
    expect(tools.find((t) => t.name === 'sum')?.description).toBe('Adds two numbers');
  });

  it('calls a renamed tool by its new name and refuses hidden tools', async () => {
    const { client } = await open();
    expect(textOf(await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } }))).toContain('5');
    await expect(client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } })).rejects.toThrow(/not available/);
  });

  it('limits calls per user with 429 and Retry-After, leaving other users alone', async () => {
    const first = await open();
    for (let i = 0; i < 3; i++) await first.client.callTool({ name: 'echo', arguments: { message: String(i) } });
    if (transport === 'streamable-http') {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': first.sessionId() ?? '',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } }),
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 99, error: { message: expect.stringContaining('rate limit') as string } });
    } else {
      // The SSE client reads only the status of its POSTs; the refusal reaches it as that status.
      await expect(first.client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toThrow(/HTTP 429/);
    }
    const second = await open();
    expect(textOf(await second.client.callTool({ name: 'echo', arguments: { message: 'mine' } }))).toContain('mine');
  });
});

describe('reverse proxy middleware on answers streamed as SSE', () => {
  let upstream: RunningUpstream;
  let proxy: WorkloadProxy;

  afterAll(async () => {
    await proxy.close();
    await upstream.stop();
  });

  it('rewrites only the answer with the request id and passes every other event through', async () => {
    const answer = JSON.stringify({
      jsonrpc: '2.0',
      id: 'req-1',
      result: { tools: [{ name: 'get-sum', description: 'old', inputSchema: {} }, { name: 'secret-tool', inputSchema: {} }] },
    });
    const progress = 'id: e1\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n';
    const other = 'event: message\ndata: {"jsonrpc":"2.0","id":"req-2","result":{"tools":[{"name":"secret-tool"}]}}\n\n';
    upstream = await startUpstream((req, res) => {
      void readRequestBody(req).then(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(progress + other);
        // The answer arrives in two pieces, split inside its data line.
        const event = `id: e2\nevent: message\ndata: ${answer}\n\n`;
        res.write(event.slice(0, 40));
        setTimeout(() => res.end(event.slice(40)), 20);
      });
    });
    proxy = createReverseProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(upstream.port)}/mcp`, transport: 'streamable-http' },
      mode: 'streamable-http',
      policy: testPolicy(policy),
      log: () => undefined,
    });
    const { url } = await proxy.listen(0, '127.0.0.1');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method: 'tools/list' }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('content-length')).toBeNull();
    const text = await res.text();
    expect(text.startsWith(progress + other)).toBe(true);
    const rewritten = text.slice((progress + other).length);
    expect(rewritten).toMatch(/^id: e2\nevent: message\ndata: \{.*\}\n\n$/);
    const data = JSON.parse(rewritten.split('data: ')[1] ?? '') as { id: string; result: { tools: { name: string; description?: string }[] } };
    expect(data.id).toBe('req-1');
    expect(data.result.tools).toEqual([{ name: 'sum', description: 'Adds two numbers', inputSchema: {} }]);
  });
});
