import { StringDecoder } from 'node:string_decoder';
import { Transform, type TransformCallback } from 'node:stream';

/** One server-sent event as it arrived: its raw lines plus the fields a rewriter needs. */
export interface SseEvent {
  /** The event's lines without terminators, comments and id/retry fields included. */
  readonly lines: readonly string[];
  /** The `event:` field, 'message' when absent. */
  readonly type: string;
  /** The `data:` lines joined with '\n', undefined when the event carries no data. */
  readonly data: string | undefined;
}

/**
 * Returns the new data of an event, undefined to pass the event through byte for byte, or null
 * to drop it.
 */
export type SseRewrite = (event: SseEvent) => string | null | undefined;

function fieldOf(line: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  if (colon === -1) return { name: line, value: '' };
  const value = line.slice(colon + 1);
  return { name: line.slice(0, colon), value: value.startsWith(' ') ? value.slice(1) : value };
}

function parseEvent(lines: readonly string[]): SseEvent {
  let type = 'message';
  const data: string[] = [];
  for (const line of lines) {
    if (line.startsWith(':')) continue;
    const { name, value } = fieldOf(line);
    if (name === 'event') type = value;
    else if (name === 'data') data.push(value);
  }
  return { lines, type, data: data.length === 0 ? undefined : data.join('\n') };
}

/** The event with its data lines replaced by `data`, every other line kept in place. */
function withData(event: SseEvent, data: string): string {
  const out: string[] = [];
  let written = false;
  for (const line of event.lines) {
    if (!line.startsWith(':') && fieldOf(line).name === 'data') {
      if (!written) for (const part of data.split('\n')) out.push(`data: ${part}`);
      written = true;
    } else {
      out.push(line);
    }
  }
  return `${out.join('\n')}\n\n`;
}

const LINE_END = /\r\n|\r|\n/g;

/**
 * Parses an event stream as it flows and lets `rewrite` replace the data of single events.
 * Every event is written out as soon as its blank line arrives, so nothing is held back
 * beyond the event being read; events left alone keep their exact bytes.
 */
export function createSseRewriter(rewrite: SseRewrite): Transform {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let raw = '';
  let lines: string[] = [];

  const take = (final: boolean): string => {
    let out = '';
    LINE_END.lastIndex = 0;
    let start = 0;
    for (let match = LINE_END.exec(pending); match !== null; match = LINE_END.exec(pending)) {
      // A lone '\r' at the end may be the first half of '\r\n' still in flight.
      if (!final && match[0] === '\r' && match.index === pending.length - 1) break;
      const line = pending.slice(start, match.index);
      raw += pending.slice(start, match.index + match[0].length);
      start = match.index + match[0].length;
      if (line !== '') {
        lines.push(line);
        continue;
      }
      const event = parseEvent(lines);
      const data = lines.length === 0 ? undefined : rewrite(event);
      if (data === undefined) out += raw;
      else if (data !== null) out += withData(event, data);
      raw = '';
      lines = [];
    }
    pending = pending.slice(start);
    return out;
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      pending += decoder.write(chunk);
      const out = take(false);
      callback(null, out === '' ? undefined : out);
    },
    flush(callback: TransformCallback) {
      pending += decoder.end();
      const out = take(true) + raw + pending;
      callback(null, out === '' ? undefined : out);
    },
  });
}
