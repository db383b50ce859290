import type { Clock } from '../../src/core/clock.js';

/** A clock tests move by hand. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(date: Date): void;
}

export function manualClock(start = new Date('2026-01-01T00:00:00Z')): ManualClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms) => (now += ms),
    set: (date) => (now = date.getTime()),
  };
}
