import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_TRANSPORTS, proxyInFrontOfEverything, testPolicy, type ProxiedEverything } from './reverse-proxy-testing.js';
import { textOf } from './stdio-proxy-testing.js';

const longRun = { name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } };

describe.each(EVERYTHING_TRANSPORTS)('reverse proxy in front of server-everything over $transport', (everything) => {
  const { transport } = everything;
  let proxied: ProxiedEverything;
  let url: string;
  const logs: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    proxied = await proxyInFrontOfEverything(everything, testPolicy(), (line) => logs.push(line));
    ({ url } = proxied);
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });

  afterAll(() => proxied.stop());

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
    expect(proxied.proxy.serverPid).toBeUndefined();
    expect(() => proxied.proxy.restartServer()).not.toThrow();
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
