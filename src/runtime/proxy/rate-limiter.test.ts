import { describe, expect, it } from 'vitest';
import { PerUserBuckets } from './rate-limiter.js';

describe('PerUserBuckets', () => {
  it('forgets users whose bucket has refilled, keeping those still limited', () => {
    const buckets = new PerUserBuckets({ label: 'per-user limit', capacity: 2, perMs: 2 / 60_000 });
    let now = 0;
    for (let i = 0; i < 1024; i++) buckets.get(`idle-${String(i)}`, now).tokens = 0;
    now += 30_000;
    const busy = buckets.get('busy', now);
    busy.tokens = 0;
    expect(buckets.size).toBe(1025);
    now += 30_000;
    // The idle users have refilled by now; adding users past the threshold drops them.
    for (let i = 0; i < 1024; i++) buckets.get(`new-${String(i)}`, now);
    expect(buckets.size).toBeLessThan(1100);
    expect(buckets.get('busy', now)).toBe(busy);
  });
});
