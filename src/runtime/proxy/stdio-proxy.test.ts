import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoggingMessageNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryServer, MODES, rawSession, startProxy, textOf, toolCall, type Running } from './stdio-proxy-testing.js';

const sessionsOf = async (base: string): Promise<number> =>
  ((await (await fetch(`${base}/health`)).json()) as { sessions: number }).sessions;

describe.each(MODES)('stdio proxy over %s', (mode) => {
  // One server-everything behind one proxy for the tests that leave it as they found it; the
  // memory and crash tests get their own. All start at once, since servers take a while to boot.
  let shared: Running;
  let memory: Running;
  let crashing: Running;
  let memoryDir: string;
  beforeAll(async () => {
    memoryDir = await mkdtemp(join(tmpdir(), 'toolyard-memory-'));
    [shared, memory, crashing] = await Promise.all([
      startProxy(mode),
      startProxy(mode, { server: memoryServer(join(memoryDir, 'memory.jsonl')) }),
      startProxy(mode),
    ]);
  });
  afterEach(() => shared.disconnect());
  afterAll(async () => {
    await Promise.all([shared.stop(), memory.stop(), crashing.stop()]);
    await rm(memoryDir, { recursive: true, force: true });
  });

  it('initializes, lists tools, calls tools and serves /health', async () => {
    const client = await shared.connect('a');
    expect(client.getServerVersion()?.name).toBe('mcp-servers/everything');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toContain('hi');
    expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain('5');
    const health = await fetch(`${shared.base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });

  it('gives each of two concurrent sessions its own progress notifications and answers', async () => {
    const a = await shared.connect('a');
    const b = await shared.connect('b');
    const progressA: Progress[] = [];
    const progressB: Progress[] = [];
    const args = { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } };
    // Both SDK clients use the same request id and progress token; the proxy keeps them apart.
    const [ra, rb] = await Promise.all([
      a.callTool(args, undefined, { onprogress: (p) => progressA.push(p) }),
      b.callTool(args, undefined, { onprogress: (p) => progressB.push(p) }),
    ]);
    expect(textOf(ra)).toMatch(/completed/i);
    expect(textOf(rb)).toMatch(/completed/i);
    // The SDK client runs notification handlers a microtask late but settles answers at once, so it
    // can drop a last progress step that reaches it in the same network read as the answer.
    for (const progress of [progressA, progressB]) {
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3].slice(0, progress.length));
    }
    const calls = [];
    for (let i = 0; i < 20; i++) {
      const who = i % 2 === 0 ? a : b;
      calls.push(who.callTool({ name: 'get-sum', arguments: { a: i, b: 1000 } }).then((r) => [i, textOf(r)] as const));
    }
    for (const [i, text] of await Promise.all(calls)) expect(text).toContain(String(i + 1000));
  });

  it('sends server notifications that belong to no request to every session', async () => {
    const [a, b] = [await shared.connect('a'), await shared.connect('b')];
    const clients = [a, b];
    const got = clients.map(
      (client) => new Promise((resolve) => client.setNotificationHandler(LoggingMessageNotificationSchema, resolve)),
    );
    const toggle = { name: 'toggle-simulated-logging', arguments: {} };
    await a.callTool(toggle);
    for (const message of await Promise.all(got)) expect(message).toMatchObject({ method: 'notifications/message' });
    await a.callTool(toggle);
  });

  it('sends a sampling request to the session whose tool call asked for it', async () => {
    const a = await shared.connect('a');
    const b = await shared.connect('b');
    const call = { name: 'trigger-sampling-request', arguments: { prompt: 'hello' } };
    expect(textOf(await b.callTool(call))).toContain('sampled by b');
    expect(textOf(await a.callTool(call))).toContain('sampled by a');
  });

  it('answers a request with an unknown session id with 404', async () => {
    const target = mode === 'sse' ? `${shared.base}/messages?sessionId=nope` : shared.url;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' };
    const res = await fetch(target, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  it('ends the session when the client goes away', async () => {
    const raw = await rawSession(mode, shared.url);
    const before = await sessionsOf(shared.base);
    await raw.close();
    for (let i = 0; i < 100 && (await raw.post(toolCall('echo', { message: 'x' }))).status !== 404; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await raw.post(toolCall('echo', { message: 'x' }))).status).toBe(404);
    expect(await sessionsOf(shared.base)).toBe(before - 1);
  });

  it('keeps server-memory state across calls: create_entities then read_graph', async () => {
    const writer = await memory.connect('writer');
    const reader = await memory.connect('reader');
    await writer.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program'] }] },
    });
    const graph = textOf(await reader.callTool({ name: 'read_graph', arguments: {} }));
    expect(graph).toContain('Ada Lovelace');
    expect(graph).toContain('wrote the first program');
  });

  it('fails calls cleanly when the server dies, and the same session works after restartServer()', async () => {
    const { proxy, base } = crashing;
    const client = await crashing.connect('a');
    let reached: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (reached = resolve));
    const args = { name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 50 } };
    const inFlight = client.callTool(args, undefined, { onprogress: () => reached() });
    await started;
    const pid = proxy.serverPid;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid ?? 0, 'SIGKILL');
    await expect(inFlight).rejects.toThrow(/MCP server is not running: killed by SIGKILL/);
    await expect(client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toThrow(/not running/);
    expect((await fetch(`${base}/health`)).status).toBe(503);
    expect(proxy.serverPid).toBeUndefined();

    proxy.restartServer();
    expect(proxy.serverPid).not.toBe(pid);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'again' } }))).toContain('again');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
