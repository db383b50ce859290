import { describe, expect, it } from 'vitest';
import { createRestartBackoff, DEFAULT_BACKOFF } from './supervisor-backoff.js';

describe('restart backoff', () => {
  it('waits 5 s doubling to 60 s and gives up after 10 tries of a server that keeps crashing', () => {
    const backoff = createRestartBackoff(DEFAULT_BACKOFF);
    const delays: number[] = [];
    let now = 0;
    backoff.started(now);
    for (;;) {
      now += 1_000;
      const decision = backoff.exited(now);
      if (!decision.restart) {
        expect(decision.attempts).toBe(10);
        break;
      }
      delays.push(decision.delayMs);
      now += decision.delayMs;
      backoff.started(now);
    }
    expect(delays).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('counts from one again once the server stayed up for 30 s', () => {
    const backoff = createRestartBackoff(DEFAULT_BACKOFF);
    backoff.started(0);
    expect(backoff.exited(1_000)).toEqual({ restart: true, delayMs: 5_000, attempt: 1 });
    backoff.started(6_000);
    expect(backoff.exited(7_000)).toEqual({ restart: true, delayMs: 10_000, attempt: 2 });
    backoff.started(17_000);
    expect(backoff.exited(17_000 + 30_000)).toEqual({ restart: true, delayMs: 5_000, attempt: 1 });
  });
});
