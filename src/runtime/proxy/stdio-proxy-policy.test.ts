import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MODES, rawSession, startProxy, textOf, toolCall, type Running } from './stdio-proxy-testing.js';

describe.each(MODES)('stdio proxy policy over %s', (mode) => {
  let running: Running;
  beforeAll(async () => {
    running = await startProxy(mode, {
      policy: {
        toolsFilter: ['say', 'get-sum', 'trigger-long-running-operation'],
        toolsOverride: { echo: { name: 'say', description: 'Says it back' }, 'get-sum': { description: 'Adds two numbers' } },
        rateLimit: { tools: [{ name: 'get-sum', perUser: { maxTokens: 1, refillPeriod: '1m' } }] },
        maxBodyBytes: 4096,
        readTimeoutMs: 300,
      },
    });
  });
  afterEach(() => running.disconnect());
  afterAll(() => running.stop());
  /** How a POSTed request that went through is acknowledged: its answer, or 202 with the answer on the SSE stream. */
  const accepted = mode === 'sse' ? 202 : 200;

  it('shows renamed, re-described and allowed tools only, and routes calls by the new name', async () => {
    const client = await running.connect('a');
    const tools = (await client.listTools()).tools.map((t) => [t.name, t.description]).sort();
    expect(tools).toEqual([
      ['get-sum', 'Adds two numbers'],
      ['say', 'Says it back'],
      ['trigger-long-running-operation', expect.any(String)],
    ]);
    expect(textOf(await client.callTool({ name: 'say', arguments: { message: 'renamed' } }))).toContain('renamed');
    expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }))).toContain('3');
    await expect(client.callTool({ name: 'get-env', arguments: {} })).rejects.toThrow(/tool get-env is not available/);
    await expect(client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toThrow(/tool echo is not available/);
  });

  it('refuses calls over a rate limit with 429, Retry-After and a -32000 JSON-RPC error', async () => {
    const client = await running.connect('sdk');
    expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } }))).toContain('2');
    await expect(client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } })).rejects.toThrow(
      /rate limit exceeded: per-user limit for tool get-sum/,
    );
    // Other tools, and other sessions, are not limited by it.
    expect(textOf(await client.callTool({ name: 'say', arguments: { message: 'still' } }))).toContain('still');

    const raw = await rawSession(mode, running.url);
    expect((await raw.post(toolCall('get-sum', { a: 1, b: 1 }, 1))).status).toBe(accepted);
    const refused = await raw.post(toolCall('get-sum', { a: 1, b: 1 }, 2));
    expect(refused.status).toBe(429);
    const retryAfter = refused.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32000, message: 'rate limit exceeded: per-user limit for tool get-sum' },
    });
    await raw.close();
  });

  it('answers a body over the limit with 413 and a JSON-RPC error, and keeps serving', async () => {
    const raw = await rawSession(mode, running.url);
    const res = await raw.post(toolCall('say', { message: 'x'.repeat(10_000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'request body too large' } });
    expect((await raw.post(toolCall('say', { message: 'small' }))).status).toBe(accepted);
    const client = await running.connect('a');
    expect(textOf(await client.callTool({ name: 'say', arguments: { message: 'fits' } }))).toContain('fits');
    await raw.close();
  });

  it('answers a request the server does not answer in time with -32001, and the server stays usable', async () => {
    const client = await running.connect('a');
    await expect(
      client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 3 } }),
    ).rejects.toThrow(/upstream did not answer within 300ms/);
    expect(textOf(await client.callTool({ name: 'say', arguments: { message: 'quick' } }))).toContain('quick');
  });
});

describe.each(MODES)('stdio proxy session TTL over %s', (mode) => {
  it('ends a session idle for longer than the TTL; its id then gets 404', async () => {
    const running = await startProxy(mode, { policy: { sessionTtlMs: 300 } });
    try {
      const raw = await rawSession(mode, running.url);
      expect((await raw.post(toolCall('echo', { message: 'still here' }))).status).toBe(mode === 'sse' ? 202 : 200);
      // Only /health is asked while waiting: a request on the session would keep it alive.
      const sessions = async () => ((await (await fetch(`${running.base}/health`)).json()) as { sessions: number }).sessions;
      const deadline = Date.now() + 10_000;
      while ((await sessions()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await sessions()).toBe(0);
      expect((await raw.post(toolCall('echo', { message: 'too late' }))).status).toBe(404);
      // In SSE mode the proxy also closes the session's stream.
      await raw.ended;
    } finally {
      await running.stop();
    }
  });
});
