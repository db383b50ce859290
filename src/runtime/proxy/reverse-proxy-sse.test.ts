import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { createSseRewriter, type SseEvent, type SseRewrite } from './reverse-proxy-sse.js';

/** Feeds `chunks` through the rewriter; returns the output and the events it saw. */
async function run(chunks: string[], rewrite: SseRewrite = () => undefined): Promise<{ out: string; events: SseEvent[] }> {
  const events: SseEvent[] = [];
  const rewriter = createSseRewriter((event) => {
    events.push(event);
    return rewrite(event);
  });
  const out = await text(Readable.from(chunks.map((c) => Buffer.from(c))).pipe(rewriter));
  return { out, events };
}

describe('SSE rewriter', () => {
  it('passes events it leaves alone through byte for byte, whatever the line endings', async () => {
    const stream = ': keep-alive\r\n\r\nid: 1\revent: message\rdata: {"a":1}\r\rdata: x\ndata: y\n\n';
    const { out, events } = await run([stream]);
    expect(out).toBe(stream);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['message', undefined],
      ['message', '{"a":1}'],
      ['message', 'x\ny'],
    ]);
  });

  it('reassembles events split anywhere, including inside a multi-byte character and a CRLF', async () => {
    const stream = 'event: endpoint\r\ndata: /m?x=é\r\n\r\n';
    const bytes = Buffer.from(stream);
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    const chunks = [bytes.subarray(0, cut), bytes.subarray(cut, bytes.length - 3), bytes.subarray(bytes.length - 3)];
    const events: SseEvent[] = [];
    const rewriter = createSseRewriter((event) => {
      events.push(event);
      return undefined;
    });
    const out = await text(Readable.from(chunks).pipe(rewriter));
    expect(out).toBe(stream);
    expect(events).toEqual([{ lines: ['event: endpoint', 'data: /m?x=é'], type: 'endpoint', data: '/m?x=é' }]);
  });

  it('replaces the data of a rewritten event and keeps its other fields', async () => {
    const { out } = await run(['id: 7\nevent: message\ndata: old\ndata: more\nretry: 10\n\ndata: next\n\n'], (e) =>
      e.data === 'old\nmore' ? 'new' : undefined,
    );
    expect(out).toBe('id: 7\nevent: message\ndata: new\nretry: 10\n\ndata: next\n\n');
  });

  it('drops an event when asked and writes out an unfinished last event as it came', async () => {
    const { out } = await run(['data: drop me\n\ndata: partial'], (e) => (e.data === 'drop me' ? null : undefined));
    expect(out).toBe('data: partial');
  });
});
