import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardRequest, type UpstreamSession } from './forward.js';

type Answer = (response: ServerResponse, id: string) => void;

describe('forwarding one request over an upstream session', () => {
  // the upstream answers each forwarded request as its test says, and keeps every message it was sent
  const received: unknown[] = [];
  const answers = new Map<string, Answer>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: string; method?: string; params?: { name?: string } };
      received.push(message);
      const answer = message.method === undefined ? undefined : answers.get(message.params?.name ?? '');
      if (!answer || message.id === undefined) return void response.writeHead(202).end();
      answer(response, message.id);
    });
  });
  const dispatcher = new Agent();
  let session: UpstreamSession;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    session = { endpoint: `http://127.0.0.1:${String(port)}/mcp`, headers: { 'x-api-key': 'k' }, sessionId: 's-1', protocolVersion: '2025-06-18', dispatcher };
  });
  afterAll(async () => {
    await dispatcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const call = (name: string, answer: Answer, timeoutMs = 5_000) => {
    answers.set(name, answer);
    return forwardRequest(session, `id-${name}`, 'tools/call', { name }, timeoutMs);
  };
  const sse = (response: ServerResponse, ...chunks: string[]) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const next = () => {
      const chunk = chunks.shift();
      if (chunk === undefined) return void response.end();
      response.write(chunk);
      setTimeout(next, 5);
    };
    next();
  };

  it('reads the answer from an SSE stream split anywhere, past notifications, answering a ping meanwhile', async () => {
    const result = await call('sse', (response, id) => {
      const answer = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'héllo' }] } });
      sse(
        response,
        'id: 1\ndata: \n\n',
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\r\n\r\n`,
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' })}\n\n`,
        `data: ${answer.slice(0, 30)}`,
        `${answer.slice(30)}\n`,
        '\n',
      );
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'héllo' }] });
    await expect.poll(() => received).toContainEqual({ jsonrpc: '2.0', id: 'ping-1', result: {} });
  });

  it('reads the answer from a JSON body, a batch included', async () => {
    expect(await call('json', (response, id) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ jsonrpc: '2.0', id: 'other', result: {} }, { jsonrpc: '2.0', id, result: { ok: true } }])))).toEqual({ ok: true });
  });

  it('passes on a JSON-RPC error as an McpError with its code and data', async () => {
    const failed = await call('fail', (response, id) => sse(response, `data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'no such issue', data: { issue: 42 } } })}\n\n`)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({ code: -32602, data: { issue: 42 } });
  });

  it('names an HTTP error status with the upstream\u2019s words, and a stream that ends unanswered', async () => {
    await expect(call('gone', (response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('Session not found'))).rejects.toThrow('the upstream answered HTTP 404: Session not found');
    await expect(call('mute', (response) => sse(response, 'data: {"jsonrpc":"2.0","method":"notifications/message"}\n\n'))).rejects.toThrow("the upstream's text/event-stream answer to tools/call holds no response to it");
    await expect(call('garbled', (response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":'))).rejects.toThrow(SyntaxError);
  });

  it('times out with the SDK client\u2019s error and tells the upstream the request is cancelled', async () => {
    const failed = await call('slow', () => undefined, 200).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({ code: ErrorCode.RequestTimeout });
    await expect.poll(() => received).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', params: expect.objectContaining({ requestId: 'id-slow' }) as object }));
  });
});
