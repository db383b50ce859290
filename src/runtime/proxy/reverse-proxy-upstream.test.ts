import { request, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createReverseProxy, type HttpProxyTarget } from './reverse-proxy.js';
import { freePort, readRequestBody, startUpstream, testPolicy, type RunningUpstream } from './reverse-proxy-testing.js';
import type { ProxyPolicy, WorkloadProxy } from './types.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends a request with headers that fetch refuses to set (Host, Connection, Cookie...). */
function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      readRequestBody(res).then((text) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }), reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('reverse proxy against small upstreams', () => {
  const running: (RunningUpstream | WorkloadProxy)[] = [];
  const logs: string[] = [];

  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await ('stop' in item ? item.stop() : item.close());
    logs.length = 0;
  });

  const proxyFor = async (target: Omit<HttpProxyTarget, 'kind'>, policy: Partial<ProxyPolicy> = {}): Promise<string> => {
    const proxy = createReverseProxy({ target: { kind: 'http', ...target }, mode: 'streamable-http', policy: testPolicy(policy), log: (l) => logs.push(l) });
    running.push(proxy);
    return (await proxy.listen(0, '127.0.0.1')).url;
  };

  const recording = async (): Promise<{ port: number; seen: Seen[] }> => {
    const seen: Seen[] = [];
    const upstream = await startUpstream((req, res) => {
      void readRequestBody(req).then((body) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1', connection: 'keep-alive' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
      });
    });
    running.push(upstream);
    return { port: upstream.port, seen };
  };

  it('adds the configured headers, keeps the MCP ones and never forwards Host, Origin or hop-by-hop headers', async () => {
    const { port, seen } = await recording();
    const url = await proxyFor({
      url: `http://127.0.0.1:${String(port)}/v1/mcp?key=abc`,
      transport: 'streamable-http',
      headers: { 'X-Api-Key': 'static-key' },
    });
    const res = await rawRequest(
      `${url}?extra=1`,
      'POST',
      {
        host: 'localhost:9999',
        origin: 'http://localhost:6274',
        cookie: 'other-app=1',
        connection: 'keep-alive, x-hop',
        'x-hop': 'dropped',
        authorization: 'Bearer client-token',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': 's-1',
        'mcp-protocol-version': '2025-06-18',
        'last-event-id': 'e-7',
      },
      rpc(1, 'ping'),
    );
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toBe('s-1');
    expect(seen).toHaveLength(1);
    const [first] = seen;
    expect(first?.url).toBe('/v1/mcp?key=abc&extra=1');
    expect(first?.body).toBe(rpc(1, 'ping'));
    expect(first?.headers).toMatchObject({
      host: `127.0.0.1:${String(port)}`,
      'x-api-key': 'static-key',
      authorization: 'Bearer client-token',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-session-id': 's-1',
      'mcp-protocol-version': '2025-06-18',
      'last-event-id': 'e-7',
    });
    for (const name of ['origin', 'cookie', 'x-hop']) expect(first?.headers).not.toHaveProperty(name);
  });

  it('lets configured credentials replace the client ones and sends other paths to the upstream origin', async () => {
    const { port, seen } = await recording();
    const url = await proxyFor({
      url: `http://127.0.0.1:${String(port)}/v1/mcp`,
      transport: 'streamable-http',
      headers: { Authorization: 'Bearer from-secret' },
    });
    const res = await fetch(new URL('/.well-known/oauth-protected-resource?x=1', url), { headers: { authorization: 'Bearer client' } });
    expect(res.status).toBe(200);
    expect(seen[0]?.url).toBe('/.well-known/oauth-protected-resource?x=1');
    expect(seen[0]?.headers.authorization).toBe('Bearer from-secret');
  });

  it('refuses a body over the limit with 413 and sends nothing upstream', async () => {
    const { port, seen } = await recording();
    const url = await proxyFor({ url: `http://127.0.0.1:${String(port)}/mcp`, transport: 'streamable-http' }, { maxBodyBytes: 64 });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc(3, 'tools/call', { name: 'echo', arguments: { message: 'x'.repeat(200) } }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'request body too large' } });
    // Without a declared length the proxy counts as the body arrives.
    const chunked = await rawRequest(url, 'POST', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, 'x'.repeat(200));
    expect(chunked.status).toBe(413);
    expect(seen).toEqual([]);
  });

  it('answers 502 naming the upstream host when it is down, logs one line without header values, and reports 503 on /health', async () => {
    const port = await freePort();
    const url = await proxyFor({
      url: `http://127.0.0.1:${String(port)}/mcp`,
      transport: 'streamable-http',
      headers: { authorization: 'Bearer very-secret' },
    });
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(4, 'tools/list') });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { id: unknown; error: { message: string } };
    expect(body.id).toBe(4);
    expect(body.error.message).toContain(`127.0.0.1:${String(port)}`);
    expect(body.error.message).not.toContain('very-secret');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(`127.0.0.1:${String(port)}`);
    expect(logs[0]).not.toContain('very-secret');
    const health = await fetch(new URL('/health', url));
    expect(health.status).toBe(503);
  });

  it('answers 504 when the upstream sends no response headers in time', async () => {
    const upstream = await startUpstream(() => undefined);
    running.push(upstream);
    const url = await proxyFor({ url: `http://127.0.0.1:${String(upstream.port)}/mcp`, transport: 'streamable-http' }, { readTimeoutMs: 150 });
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(5, 'tools/list') });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32603 } });
    expect(logs).toHaveLength(1);
    // The upstream accepted the connection, so it counts as up.
    expect((await fetch(new URL('/health', url))).status).toBe(200);
  });

  it('rewrites redirects to the upstream origin into proxy paths', async () => {
    let port = 0;
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${String(port)}/authorize?x=1` }).end();
    });
    port = upstream.port;
    running.push(upstream);
    const url = await proxyFor({ url: `http://127.0.0.1:${String(port)}/mcp`, transport: 'streamable-http' });
    const res = await fetch(new URL('/login', url), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/authorize?x=1');
  });

  it('counts a recent answer as healthy without probing, until it is old', async () => {
    let now = 1_000_000;
    const upstream = await startUpstream((_req, res) => res.writeHead(204).end());
    const { port } = upstream;
    const proxy = createReverseProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(port)}/mcp`, transport: 'streamable-http' },
      mode: 'streamable-http',
      policy: testPolicy(),
      log: () => undefined,
      clock: () => now,
    });
    running.push(proxy);
    const { url } = await proxy.listen(0, '127.0.0.1');
    await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(1, 'ping') })).text();
    await upstream.stop();
    expect((await fetch(new URL('/health', url))).status).toBe(200);
    now += 60_000;
    expect((await fetch(new URL('/health', url))).status).toBe(503);
  });

  it('sends a request again when a kept-alive upstream socket turns out to be closed', async () => {
    const served = new WeakMap<object, number>();
    const upstream = await startUpstream((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      // An upstream whose idle timeout fires just as the proxy reuses the socket.
      if (count > 1) {
        req.socket.destroy();
        return;
      }
      void readRequestBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    });
    running.push(upstream);
    const url = await proxyFor({ url: `http://127.0.0.1:${String(upstream.port)}/mcp`, transport: 'streamable-http' });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(1, 'ping') });
      expect(res.status).toBe(200);
      await res.text();
    }
    expect(logs).toEqual([]);
  });
});
