/*
 * Server-sent events read as they arrive (the providers' streams): complete events are handed out with
 * their exact text, so they can be relayed byte for byte, or left out.
 */

export interface SseEvent {
  /** The event's text including its terminating blank line. */
  text: string;
  /** `event:` field, if any. */
  event: string | undefined;
  /** The `data:` lines joined by newlines; undefined when the event has none. */
  data: string | undefined;
}

const BOUNDARY = /\r\n\r\n|\n\n|\r\r/;

export interface SseReader {
  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[];
  /** What is left after the stream ended (an event without its final blank line), if any. */
  rest(): SseEvent | undefined;
}

function parseEvent(text: string): SseEvent {
  let event: string | undefined;
  let data: string[] | undefined;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line.startsWith('data:')) (data ??= []).push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  return { text, event, data: data?.join('\n') };
}

export function createSseReader(): SseReader {
  let buffer = '';
  return {
    push(text) {
      buffer += text;
      const events: SseEvent[] = [];
      for (let match = BOUNDARY.exec(buffer); match; match = BOUNDARY.exec(buffer)) {
        const end = match.index + match[0].length;
        events.push(parseEvent(buffer.slice(0, end)));
        buffer = buffer.slice(end);
      }
      return events;
    },
    rest() {
      if (buffer.trim() === '') return undefined;
      const event = parseEvent(buffer);
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
