/*
 * Server-sent events read as they arrive (an LLM provider's stream, an MCP server's answer), as bytes: complete
 * events are handed out as positions in what was received, so they are relayed byte for byte (or left out)
 * without being decoded and encoded again, and only the few whose fields matter are parsed.
 */

export interface SseEvent {
  /** `event:` field, if any. */
  event: string | undefined;
  /** The `data:` lines joined by newlines; undefined when the event has none. */
  data: string | undefined;
}

/** The events a chunk completed: they lie one after the other in `bytes`, from its start. */
export interface SseEvents {
  bytes: Buffer;
  /** Where each event ends in `bytes`, its terminating blank line included. */
  ends: number[];
}

export interface SseReader {
  /** Feeds the bytes received; returns the events they completed. */
  push(chunk: Buffer): SseEvents;
  /** What is left after the stream ended (an event without its final blank line), if any. */
  rest(): Buffer | undefined;
}

const LF = 0x0a;
const CR = 0x0d;
const EMPTY: Buffer = Buffer.alloc(0);
/** A blank line that ends in a new chunk began at most this many bytes before it (CR LF, then CR). */
const CARRIED_TERMINATOR = 3;

/** An event's fields, from its text. */
export function parseEvent(text: string): SseEvent {
  let event: string | undefined;
  let data: string[] | undefined;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line.startsWith('data:')) (data ??= []).push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  return { event, data: data?.join('\n') };
}

/**
 * Events end at a blank line: two line terminators (CR LF, LF or CR) in a row. The searches run forward only,
 * so a chunk of many events is read once, and a stream without CR is searched for one once a chunk.
 */
export function createSseReader(): SseReader {
  let pending = EMPTY;
  return {
    push(chunk) {
      let at = Math.max(0, pending.length - CARRIED_TERMINATOR);
      const bytes = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const ends: number[] = [];
      let previousEnd = -1;
      let nextCr = bytes.indexOf(CR, at);
      for (;;) {
        const lf = bytes.indexOf(LF, at);
        if (nextCr !== -1 && nextCr < at) nextCr = bytes.indexOf(CR, at);
        let terminator: number;
        let size = 1;
        if (nextCr !== -1 && (lf === -1 || nextCr < lf)) {
          // a final CR may be the first half of CR LF: the next chunk tells
          if (nextCr + 1 === bytes.length) break;
          terminator = nextCr;
          if (bytes[nextCr + 1] === LF) size = 2;
        } else if (lf !== -1) {
          terminator = lf;
        } else {
          break;
        }
        at = terminator + size;
        if (terminator === previousEnd) {
          ends.push(at);
          previousEnd = -1;
        } else {
          previousEnd = at;
        }
      }
      pending = bytes.subarray(ends.at(-1) ?? 0);
      return { bytes, ends };
    },
    rest() {
      const rest = pending;
      pending = EMPTY;
      return rest.toString('latin1').trim() === '' ? undefined : rest;
    },
  };
}

/** The event's data as JSON, or undefined (`[DONE]`, or not JSON). */
export function jsonOf(event: SseEvent): unknown {
  if (event.data === undefined || event.data === '[DONE]') return undefined;
  try {
    return JSON.parse(event.data) as unknown;
  } catch {
    return undefined;
  }
}
