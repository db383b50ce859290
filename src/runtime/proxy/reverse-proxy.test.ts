import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReverseProxy } from './reverse-proxy.js';
import { startEverything, testPolicy, type RunningUpstream } from './reverse-proxy-testing.js';
import type { WorkloadProxy } from './types.js';

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((c) => c.text ?? '').join('');
}

const longRun = { name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } };

describe.each([
  { transport: 'streamable-http' as const, mode: 'streamableHttp' as const, upstreamPath: '/mcp' },
  { transport: 'sse' as const, mode: 'sse' as const, upstreamPath: '/sse' },
])('reverse proxy in front of server-everything over $transport', ({ transport, mode, upstreamPath }) => {
  let upstream: RunningUpstream;
  let proxy: WorkloadProxy;
  let url: string;
  const logs: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    upstream = await startEverything(mode);
    proxy = createReverseProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(upstream.port)}${upstreamPath}`, transport },
      mode: transport,
      policy: testPolicy(),
      log: (line) => logs.push(line),
    });
    ({ url } = await proxy.listen(0, '127.0.0.1'));
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });

  afterAll(async () => {
    await proxy.close();
    await upstream.stop();
  });

  const open = async (name: string): Promise<Client> => {
    const client = new Client({ name, version: '1.0.0' });
    const endpoint = new URL(url);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- HTTP+SSE servers still exist and this proxy serves them
    await client.connect(transport === 'sse' ? new SSEClientTransport(endpoint) : new StreamableHTTPClientTransport(endpoint));
    clients.push(client);
    return client;
  };

  it('is reached at the path of its transport and reports no server process of its own', () => {
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${transport === 'sse' ? '/sse' : '/mcp'}$`));
    expect(proxy.serverPid).toBeUndefined();
    expect(() => proxy.restartServer()).not.toThrow();
  });

  it('initializes, lists tools and calls echo', async () => {
    const client = await open('a');
    expect(client.getServerVersion()?.name).toBe('mcp-servers/everything');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'through the proxy' } }))).toContain('through the proxy');
  });

  it('streams progress notifications to two sessions at once', async () => {
    const [a, b] = await Promise.all([open('a'), open('b')]);
    const progressA: Progress[] = [];
    const progressB: Progress[] = [];
    const [ra, rb] = await Promise.all([
      a.callTool(longRun, undefined, { onprogress: (p) => progressA.push(p) }),
      b.callTool(longRun, undefined, { onprogress: (p) => progressB.push(p) }),
    ]);
    expect(textOf(ra)).toMatch(/completed/i);
    expect(textOf(rb)).toMatch(/completed/i);
    // server-everything's SSE transport delivers only the first step's progress, proxy or not.
    const expected = transport === 'sse' ? [1] : [1, 2];
    expect(progressA.map((p) => p.progress)).toEqual(expected);
    expect(progressB.map((p) => p.progress)).toEqual(expected);
  });

  it('answers /health with ok while the upstream is up', async () => {
    const res = await fetch(new URL('/health', url));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(logs).toEqual([]);
  });
});
