import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterEach, describe, expect, it } from 'vitest';
import { readRequestBody, startUpstream, testPolicy, type RunningUpstream } from './reverse-proxy-testing.js';
import type { WorkloadProxy } from './types.js';
import { proxyUrl } from './http-io.js';
import { createWorkloadProxy } from './workload-proxy.js';

const require = createRequire(import.meta.url);
const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('proxyUrl', () => {
  it('gives the client URL for the mode or transport', () => {
    expect(proxyUrl(8080, '127.0.0.1', 'streamable-http')).toBe('http://127.0.0.1:8080/mcp');
    expect(proxyUrl(8080, 'localhost', 'sse')).toBe('http://localhost:8080/sse');
    expect(proxyUrl(8080, '::1', 'streamable-http')).toBe('http://[::1]:8080/mcp');
  });
});

describe('createWorkloadProxy', () => {
  const running: (RunningUpstream | WorkloadProxy | Client)[] = [];

  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await ('stop' in item ? item.stop() : item.close());
  });

  it('runs a stdio server in the requested mode', async () => {
    const proxy = createWorkloadProxy({
      target: { kind: 'stdio', command: { command: process.execPath, args: [everythingEntry, 'stdio'], env: {} } },
      mode: 'sse',
      policy: testPolicy(),
      log: () => undefined,
    });
    running.push(proxy);
    const { url, port } = await proxy.listen(0, '127.0.0.1');
    expect(url).toBe(proxyUrl(port, '127.0.0.1', 'sse'));
    expect(proxy.serverPid).toEqual(expect.any(Number));
    const client = new Client({ name: 'test', version: '1.0.0' });
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- HTTP+SSE servers still exist and this proxy serves them
    await client.connect(new SSEClientTransport(new URL(url)));
    running.push(client);
    expect(client.getServerVersion()?.name).toBe('mcp-servers/everything');
  });

  it('puts a reverse proxy in front of an HTTP server', async () => {
    const paths: string[] = [];
    const upstream = await startUpstream((req, res) => {
      void readRequestBody(req).then(() => {
        paths.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    running.push(upstream);
    const proxy = createWorkloadProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(upstream.port)}/api/mcp`, transport: 'streamable-http' },
      mode: 'sse',
      policy: testPolicy(),
      log: () => undefined,
    });
    running.push(proxy);
    const { url, port } = await proxy.listen(0, '127.0.0.1');
    // An HTTP workload is reached over its own transport; the stdio proxy mode does not apply.
    expect(url).toBe(proxyUrl(port, '127.0.0.1', 'streamable-http'));
    expect(proxy.serverPid).toBeUndefined();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(paths).toEqual(['/api/mcp']);
  });
});
