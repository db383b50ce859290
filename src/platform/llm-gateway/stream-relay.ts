import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { createSseReader, jsonOf, parseEvent, type SseEvents } from '../../core/http/sse.js';
import type { UsageTracker } from './usage-tracker.js';
import { isJsonObject } from '../../core/json-object.js';

/*
 * A streamed answer relayed event by event from the upstream's socket to the client's, as bytes: the
 * events a chunk completes are written straight to the client's response (no stream in between), the ones
 * that may report usage are parsed on the way, and OpenAI's usage-only chunk is dropped when the client did
 * not ask for it. While the client's socket is full the upstream is paused; once the client is gone the
 * upstream is still read to its end (the provider bills all of it) and nothing more is written.
 */

/**
 * Which stream events may carry usage (a key the trackers read, holding an object): only those are parsed.
 * OpenAI streams asked for their usage send `"usage":null` in every other chunk, so the value counts too.
 */
const MAY_CARRY_USAGE = /"(?:usage|usageMetadata|groundingMetadata)"\s*:\s*\{/;

/**
 * Whether an event must be parsed to read its usage. Usage keys and JSON punctuation are ASCII, so the event's
 * bytes read one byte a character (no UTF-8 decoding) are searched; an event of several data lines is parsed
 * whatever it holds, as its JSON may be split between them.
 */
function mayCarryUsage(bytes: Buffer, start: number, end: number): boolean {
  const text = bytes.toString('latin1', start, end);
  return text.indexOf('data:') !== text.lastIndexOf('data:') || MAY_CARRY_USAGE.test(text);
}

export interface StreamRelay {
  data(controller: Dispatcher.DispatchController, chunk: Buffer): void;
  /** The upstream's stream ended: what is left of it is relayed. */
  end(): void;
}

/** `dropUsageChunk`: OpenAI's usage-only chunk, which the gateway asked for on the client's behalf, is not relayed. */
export function createStreamRelay(options: { out: Writable; tracker: UsageTracker; dropUsageChunk: boolean; clientGone: () => boolean }): StreamRelay {
  const { out, tracker, dropUsageChunk, clientGone } = options;
  const reader = createSseReader();
  let paused: Dispatcher.DispatchController | undefined;
  const resume = () => {
    const controller = paused;
    paused = undefined;
    out.off('drain', resume);
    out.off('close', resume);
    controller?.resume();
  };

  /** Writes `bytes` from `from` to `to` unless the client is gone; false once the client's socket is full. */
  const write = (bytes: Buffer, from: number, to: number): boolean => to <= from || clientGone() || out.destroyed || out.write(bytes.subarray(from, to));

  /** Relays the events of `bytes` in as few writes as can be; false once the client's socket is full. */
  const relay = ({ bytes, ends }: SseEvents): boolean => {
    let flowing = true;
    let relayFrom = 0;
    let start = 0;
    for (const end of ends) {
      if (mayCarryUsage(bytes, start, end)) {
        const event = parseEvent(bytes.toString('utf8', start, end));
        const data = event.data !== undefined && MAY_CARRY_USAGE.test(event.data) ? jsonOf(event) : undefined;
        if (data !== undefined) tracker.observe(data, event.event);
        if (dropUsageChunk && isJsonObject(data) && isJsonObject(data.usage) && Array.isArray(data.choices) && data.choices.length === 0) {
          flowing = write(bytes, relayFrom, start) && flowing;
          relayFrom = end;
        }
      }
      start = end;
    }
    return write(bytes, relayFrom, start) && flowing;
  };

  return {
    data(controller, chunk) {
      if (relay(reader.push(chunk)) || clientGone() || out.destroyed || paused) return;
      paused = controller;
      controller.pause();
      out.on('drain', resume);
      out.on('close', resume);
    },
    end() {
      const rest = reader.rest();
      if (rest) relay({ bytes: rest, ends: [rest.length] });
    },
  };
}
