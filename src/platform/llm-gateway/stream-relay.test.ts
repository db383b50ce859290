import { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { createStreamRelay } from './stream-relay.js';
import { createUsageTracker } from './usage-tracker.js';

/**
 * A client socket that takes `capacity` bytes before it asks the relay to wait. A slow one reads nothing
 * until `drain` is called; a fast one reads everything at once.
 */
function slowClient(capacity: number, slow = true) {
  const received: Buffer[] = [];
  const waiting: (() => void)[] = [];
  let reading = !slow;
  const out = new Writable({
    highWaterMark: capacity,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk);
      if (reading) done();
      else waiting.push(done);
    },
  });
  return {
    out,
    text: () => Buffer.concat(received).toString('utf8'),
    /** Lets every write so far complete (the client read them): `drain` follows when the relay had to wait. */
    drain: async () => {
      reading = true;
      while (waiting.length > 0) waiting.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function upstreamController() {
  const calls: string[] = [];
  const controller = {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    abort: () => calls.push('abort'),
    paused: false,
    aborted: false,
    reason: null,
  } as unknown as Dispatcher.DispatchController;
  return { controller, calls };
}

const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const piece = (text: string) => event({ choices: [{ index: 0, delta: { content: text } }], usage: null });
const usageChunk = event({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } });

describe('relaying a provider\'s stream to the client', () => {
  it('writes every event byte for byte however the chunks split them, and reads the usage on the way', () => {
    const stream = `${piece('Hé')}${piece(' llo')}${usageChunk}data: [DONE]\n\n`;
    for (const step of [1, 5, 64, stream.length]) {
      const client = slowClient(1 << 20, false);
      const tracker = createUsageTracker('openai', {});
      const relay = createStreamRelay({ out: client.out, tracker, dropUsageChunk: false, clientGone: () => false });
      const { controller, calls } = upstreamController();
      const bytes = Buffer.from(stream);
      for (let at = 0; at < bytes.length; at += step) relay.data(controller, bytes.subarray(at, at + step));
      relay.end();
      expect(client.text()).toBe(stream);
      expect(tracker.usage()).toMatchObject({ input: 12, output: 5 });
      expect(calls).toEqual([]);
    }
  });

  it('drops the usage-only chunk the gateway asked for on the client\'s behalf, still charging it', () => {
    const client = slowClient(1 << 20, false);
    const tracker = createUsageTracker('openai', {});
    const relay = createStreamRelay({ out: client.out, tracker, dropUsageChunk: true, clientGone: () => false });
    relay.data(upstreamController().controller, Buffer.from(`${piece('a')}${usageChunk}data: [DONE]\n\n`));
    relay.end();
    expect(client.text()).toBe(`${piece('a')}data: [DONE]\n\n`);
    expect(tracker.usage()).toMatchObject({ input: 12, output: 5 });
  });

  it('relays a last event the upstream did not end with a blank line', () => {
    const client = slowClient(1 << 20, false);
    const relay = createStreamRelay({ out: client.out, tracker: createUsageTracker('openai', {}), dropUsageChunk: false, clientGone: () => false });
    relay.data(upstreamController().controller, Buffer.from(`${piece('a')}data: [DONE]`));
    expect(client.text()).toBe(piece('a'));
    relay.end();
    expect(client.text()).toBe(`${piece('a')}data: [DONE]`);
  });

  it('pauses the upstream while the client\'s socket is full, and resumes it once drained', async () => {
    const client = slowClient(64);
    const relay = createStreamRelay({ out: client.out, tracker: createUsageTracker('openai', {}), dropUsageChunk: false, clientGone: () => false });
    const { controller, calls } = upstreamController();
    relay.data(controller, Buffer.from(piece('x'.repeat(100))));
    expect(calls).toEqual(['pause']);
    // a chunk already on its way while paused is still relayed, without pausing twice
    relay.data(controller, Buffer.from(piece('y')));
    expect(calls).toEqual(['pause']);
    await client.drain();
    expect(calls).toEqual(['pause', 'resume']);
    relay.data(controller, Buffer.from(piece('z')));
    relay.end();
    await client.drain();
    expect(client.text()).toBe(`${piece('x'.repeat(100))}${piece('y')}${piece('z')}`);
  });

  it('resumes the upstream when the client leaves while it waits, and writes nothing more', async () => {
    const client = slowClient(64);
    let gone = false;
    const tracker = createUsageTracker('openai', {});
    const relay = createStreamRelay({ out: client.out, tracker, dropUsageChunk: false, clientGone: () => gone });
    const { controller, calls } = upstreamController();
    relay.data(controller, Buffer.from(piece('x'.repeat(100))));
    expect(calls).toEqual(['pause']);
    gone = true;
    client.out.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['pause', 'resume']);
    // the rest is still read for its usage (the provider bills it), never written
    relay.data(controller, Buffer.from(`${piece('y')}${usageChunk}`));
    relay.end();
    expect(client.text()).toBe(piece('x'.repeat(100)));
    expect(calls).toEqual(['pause', 'resume']);
    expect(tracker.usage()).toMatchObject({ input: 12, output: 5 });
  });
});
