import { describe, expect, it } from 'vitest';
import { createSseReader, jsonOf, parseEvent, type SseEvents } from './sse.js';

describe('reading a server-sent event stream', () => {
  const texts = ({ bytes, ends }: SseEvents) => ends.map((end, index) => bytes.toString('utf8', ends[index - 1] ?? 0, end));

  it('hands out whole events with their exact bytes, however they are split, LF or CRLF', () => {
    const reader = createSseReader();
    expect(texts(reader.push(Buffer.from('event: message_start\ndata: {"a"')))).toEqual([]);
    const [first] = texts(reader.push(Buffer.from(':1}\n\ndata: {"b":2}\r\n')));
    expect(first).toBe('event: message_start\ndata: {"a":1}\n\n');
    expect(first && parseEvent(first)).toEqual({ event: 'message_start', data: '{"a":1}' });
    const [second] = texts(reader.push(Buffer.from('\r\ndata: [DONE]')));
    expect(second).toBe('data: {"b":2}\r\n\r\n');
    expect(second && jsonOf(parseEvent(second))).toEqual({ b: 2 });
    const rest = reader.rest();
    expect(rest?.toString('utf8')).toBe('data: [DONE]');
    expect(rest && jsonOf(parseEvent(rest.toString('utf8')))).toBeUndefined();
    expect(reader.rest()).toBeUndefined();
  });

  it('ends an event at any blank line the SSE format allows, and hands back every byte split at any point', () => {
    const stream = 'data: {"a":"ü—€"}\n\nevent: e\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\r\n: comment\r\n\ndata: 4\r\n\n\n\ndata: end';
    const expected = ['data: {"a":"ü—€"}\n\n', 'event: e\r\ndata: 1\r\n\r\n', 'data: 2\r\r', 'data: 3\n\r\n', ': comment\r\n\n', 'data: 4\r\n\n', '\n\n'];
    const bytes = Buffer.from(stream);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const step of [1, 7, bytes.length]) {
        const reader = createSseReader();
        const events = texts(reader.push(bytes.subarray(0, cut)));
        for (let at = cut; at < bytes.length; at += step) events.push(...texts(reader.push(bytes.subarray(at, Math.min(bytes.length, at + step)))));
        expect(events).toEqual(expected);
        expect(reader.rest()?.toString('utf8')).toBe('data: end');
      }
    }
  });

  it('splits a chunk of many events, and leaves nothing but blank space unread', () => {
    const event = `data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(200) } }], usage: null })}\n\n`;
    const reader = createSseReader();
    const events = texts(reader.push(Buffer.from(event.repeat(5000))));
    expect(events).toHaveLength(5000);
    expect(events.every((text) => text === event)).toBe(true);
    reader.push(Buffer.from(' \r\n'));
    expect(reader.rest()).toBeUndefined();
  });
});
