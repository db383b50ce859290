/*
 * Server-sent events read as they arrive (the providers' streams): complete events are handed out as their
 * exact text, so they can be relayed byte for byte, or left out, and parsed only when their fields matter.
 */

export interface SseEvent {
  /** `event:` field, if any. */
  event: string | undefined;
  /** The `data:` lines joined by newlines; undefined when the event has none. */
  data: string | undefined;
}

const BOUNDARY = /\r\n\r\n|\n\n|\r\r/;

export interface SseReader {
  /** Feeds decoded text; returns the text of each event it completed, its terminating blank line included. */
  push(text: string): string[];
  /** What is left after the stream ended (an event without its final blank line), if any. */
  rest(): string | undefined;
}

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

export function createSseReader(): SseReader {
  let buffer = '';
  return {
    push(text) {
      buffer += text;
      const events: string[] = [];
      for (let match = BOUNDARY.exec(buffer); match; match = BOUNDARY.exec(buffer)) {
        const end = match.index + match[0].length;
        events.push(buffer.slice(0, end));
        buffer = buffer.slice(end);
      }
      return events;
    },
    rest() {
      if (buffer.trim() === '') return undefined;
      const event = buffer;
      buffer = '';
      return event;
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
