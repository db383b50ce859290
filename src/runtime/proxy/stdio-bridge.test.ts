import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStdioBridge, type StdioBridge } from './stdio-bridge.js';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function connect(url: string, name: string): Promise<Connected> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((c) => c.text ?? '').join('');
}

describe('stdio bridge (server-everything over streamable HTTP)', () => {
  let bridge: StdioBridge;
  let url: string;
  const clients: Connected[] = [];

  beforeEach(async () => {
    bridge = createStdioBridge({ server: { command: process.execPath, args: [everythingEntry, 'stdio'] } });
    ({ url } = await bridge.listen());
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.client.close().catch(() => undefined);
    await bridge.close();
  });

  const open = async (name: string): Promise<Connected> => {
    const c = await connect(url, name);
    clients.push(c);
    return c;
  };

  it('initializes, lists tools and calls echo and get-sum', async () => {
    const { client, transport } = await open('a');
    expect(transport.sessionId).toMatch(/.+/);
    expect(client.getServerVersion()?.name).toBe('mcp-servers/everything');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain('hi');
    expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain('5');
  });

  it('serves /health', async () => {
    const res = await fetch(url.replace('/mcp', '/health'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('routes progress notifications to the session that asked, with its own token', async () => {
    const a = await open('a');
    const b = await open('b');
    const progressA: Progress[] = [];
    const progressB: Progress[] = [];
    const args = { name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } };
    // Both SDK clients use the same request id and progress token here; the proxy keeps them apart.
    const [ra, rb] = await Promise.all([
      a.client.callTool(args, undefined, { onprogress: (p) => progressA.push(p) }),
      b.client.callTool(args, undefined, { onprogress: (p) => progressB.push(p) }),
    ]);
    expect(textOf(ra)).toMatch(/completed/i);
    expect(textOf(rb)).toMatch(/completed/i);
    expect(progressA.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progressB.map((p) => p.progress)).toEqual([1, 2, 3]);
  });

  it('shares one server process between concurrent sessions with colliding request ids', async () => {
    const a = await open('a');
    const b = await open('b');
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    expect(b.client.getServerVersion()?.name).toBe('mcp-servers/everything');
    const calls = [];
    for (let i = 0; i < 20; i++) {
      const who = i % 2 === 0 ? a : b;
      calls.push(
        who.client
          .callTool({ name: 'get-sum', arguments: { a: i, b: 1000 } })
          .then((r) => [i, textOf(r)] as const),
      );
    }
    for (const [i, text] of await Promise.all(calls)) expect(text).toContain(String(i + 1000));
    const health = (await (await fetch(url.replace('/mcp', '/health'))).json()) as { sessions: number };
    expect(health.sessions).toBe(2);
  });

  it('ends a session on DELETE; the session id is then unknown (404)', async () => {
    const a = await open('a');
    const sessionId = a.transport.sessionId ?? '';
    await a.transport.terminateSession();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    // Other sessions keep working on the same server.
    const b = await open('b');
    expect((await b.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('rejects requests without a session and malformed bodies', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).status).toBe(400);
    expect((await post('{not json')).status).toBe(400);
    expect((await post('[]')).status).toBe(400);
  });

  it('answers pending requests with a JSON-RPC error when the server process dies', async () => {
    const a = await open('a');
    const pending = a.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } });
    await new Promise((r) => setTimeout(r, 200));
    process.kill(bridge.serverPid ?? 0, 'SIGKILL');
    await expect(pending).rejects.toThrow(/MCP server is not running/);
    await expect(a.client.listTools()).rejects.toThrow();
    const res = await fetch(url.replace('/mcp', '/health'));
    expect(res.status).toBe(503);
  });
});

describe('stdio bridge notifications without a target', () => {
  let bridge: StdioBridge;
  let url: string;

  beforeEach(async () => {
    bridge = createStdioBridge({ server: { command: process.execPath, args: [everythingEntry, 'stdio'] } });
    ({ url } = await bridge.listen());
  });

  afterEach(async () => {
    await bridge.close();
  });

  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  async function rawSession(): Promise<string> {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: number }).id).toBe(1);
    return res.headers.get('mcp-session-id') ?? '';
  }

  async function waitForEvent(body: ReadableStream<Uint8Array>, method: string): Promise<unknown> {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += value;
      for (const line of buffer.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const message = JSON.parse(line.slice(6)) as { method?: string };
        if (message.method === method) {
          await reader.cancel();
          return message;
        }
      }
    }
  }

  it('sends server notifications to every open GET /mcp stream', async () => {
    const s1 = await rawSession();
    const s2 = await rawSession();
    const streams = await Promise.all(
      [s1, s2].map((id) => fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } })),
    );
    for (const s of streams) expect(s.headers.get('content-type')).toBe('text/event-stream');
    const got = streams.map((s) => {
      if (s.body === null) throw new Error('no body');
      return waitForEvent(s.body, 'notifications/message');
    });
    const call = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': s1 },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'toggle-simulated-logging', arguments: {} } }),
    });
    expect(call.status).toBe(200);
    const events = await Promise.all(got);
    for (const event of events) {
      expect(event).toMatchObject({ method: 'notifications/message' });
      expect(typeof (event as { params: { level: unknown } }).params.level).toBe('string');
    }
  });
});
