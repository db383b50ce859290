import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReverseProxy } from './reverse-proxy.js';
import { startUpstream, testPolicy, type RunningUpstream } from './reverse-proxy-testing.js';
import { startProxy, type Running } from './stdio-proxy-testing.js';
import type { WorkloadProxy } from './types.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
});

/** A POST with the Host and Origin a browser would send; fetch cannot set Host. */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

const messageOf = (body: string): string => (JSON.parse(body) as { error: { message: string } }).error.message;

describe('workload proxies refuse DNS rebinding', () => {
  let stdio: Running;
  let upstream: RunningUpstream;
  let reverse: WorkloadProxy;
  let reverseUrl: string;
  const upstreamCalls: string[] = [];

  beforeAll(async () => {
    stdio = await startProxy('streamable-http');
    upstream = await startUpstream((req, res) => {
      upstreamCalls.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    reverse = createReverseProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(upstream.port)}/mcp`, transport: 'streamable-http' },
      mode: 'streamable-http',
      policy: testPolicy(),
      log: () => undefined,
    });
    ({ url: reverseUrl } = await reverse.listen(0, '127.0.0.1'));
  });

  afterAll(async () => {
    await stdio.stop();
    await reverse.close();
    await upstream.stop();
  });

  const urls = (): [string, string][] => [
    ['stdio bridge', stdio.url],
    ['reverse proxy', reverseUrl],
  ];

  it('refuses a Host that is not this machine, and an Origin that is not a loopback page, before doing any work', async () => {
    for (const [, url] of urls()) {
      const port = new URL(url).port;
      const rebound = await post(url, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` });
      expect(rebound.status).toBe(403);
      expect(messageOf(rebound.body)).toContain('Host header');
      const page = await post(url, { host: `127.0.0.1:${port}`, origin: 'http://evil.example' });
      expect(page.status).toBe(403);
      expect(messageOf(page.body)).toContain('loopback origin');
    }
    expect(upstreamCalls).toEqual([]);
  });

  it('serves local clients and pages served from this machine', async () => {
    for (const [, url] of urls()) {
      const port = new URL(url).port;
      expect((await post(url, { host: `localhost:${port}` })).status).toBe(200);
      expect((await post(url, { host: `127.0.0.1:${port}`, origin: 'http://localhost:6274' })).status).toBe(200);
    }
  });
});
