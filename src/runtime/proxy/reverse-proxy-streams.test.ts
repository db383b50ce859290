import { afterEach, describe, expect, it } from 'vitest';
import { createReverseProxy } from './reverse-proxy.js';
import { startUpstream, testPolicy, type RunningUpstream } from './reverse-proxy-testing.js';
import type { WorkloadProxy } from './types.js';

describe('reverse proxy SSE endpoint rewriting', () => {
  const running: (RunningUpstream | WorkloadProxy)[] = [];
  const logs: string[] = [];

  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await ('stop' in item ? item.stop() : item.close());
    logs.length = 0;
  });

  /** An SSE upstream that announces `endpoint(port)` and keeps the stream open. */
  const sseProxy = async (endpoint: (port: number) => string): Promise<string> => {
    let port = 0;
    const upstream = await startUpstream((req, res) => {
      if (req.url !== '/v1/sse') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`: hello\n\nevent: endpoint\r\ndata: ${endpoint(port)}\r\n\r\n`);
    });
    port = upstream.port;
    running.push(upstream);
    const proxy = createReverseProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(port)}/v1/sse`, transport: 'sse' },
      mode: 'sse',
      policy: testPolicy(),
      log: (l) => logs.push(l),
    });
    running.push(proxy);
    return (await proxy.listen(0, '127.0.0.1')).url;
  };

  const readAll = async (url: string): Promise<string> => {
    const controller = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (reader !== undefined && !text.includes('endpoint')) {
      // A stream the proxy cuts off ends the read with an error; what arrived before is the result.
      const chunk = await reader.read().catch(() => undefined);
      if (chunk === undefined || chunk.done) break;
      text += chunk.value;
    }
    controller.abort();
    return text;
  };

  it('turns an absolute endpoint URL on the upstream into a proxy path', async () => {
    const url = await sseProxy((port) => `http://127.0.0.1:${String(port)}/v1/messages?session=abc`);
    expect(url).toMatch(/\/sse$/);
    expect(await readAll(url)).toBe(': hello\n\nevent: endpoint\ndata: /v1/messages?session=abc\n\n');
  });

  it('resolves a relative endpoint against the upstream URL', async () => {
    const url = await sseProxy(() => 'messages?session=abc');
    expect(await readAll(url)).toContain('data: /v1/messages?session=abc\n\n');
  });

  it('closes the stream rather than send a client to another origin', async () => {
    const url = await sseProxy(() => 'https://elsewhere.example/messages');
    const text = await readAll(url);
    expect(text).not.toContain('elsewhere');
    expect(text).not.toContain('endpoint');
    expect(logs).toEqual([expect.stringContaining('another origin')]);
  });
});

describe('reverse proxy streams', () => {
  const running: (RunningUpstream | WorkloadProxy)[] = [];

  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await ('stop' in item ? item.stop() : item.close());
  });

  it('delivers each event while the upstream stream stays open, and closes it when the client leaves', async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const upstream = await startUpstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n');
      req.socket.on('close', upstreamClosed);
    });
    running.push(upstream);
    const proxy = createReverseProxy({
      target: { kind: 'http', url: `http://127.0.0.1:${String(upstream.port)}/mcp`, transport: 'streamable-http' },
      mode: 'streamable-http',
      policy: testPolicy(),
      log: () => undefined,
    });
    running.push(proxy);
    const { url } = await proxy.listen(0, '127.0.0.1');
    const controller = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 's' }, signal: controller.signal });
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader?.read())?.value).toContain('notifications/message');
    controller.abort();
    await closed;
  });
});
