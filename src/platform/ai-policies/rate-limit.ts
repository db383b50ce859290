import { DomainError } from '../../core/errors.js';

/** Past this many callers the buckets start over (a forgotten caller gets a full bucket, never less). */
const MAX_CALLERS = 100_000;

/**
 * A token bucket per caller, on this replica (PLATFORM-API Part 5 rule 20): `burst` tokens, refilled at
 * `requestsPerSecond`; either at 0 turns the limit off.
 */
export function createRateLimiter(options: { requestsPerSecond: number; burst: number; now: () => number }) {
  const { requestsPerSecond: rate, burst } = options;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes one token of `caller`'s bucket, or throws the 429 with Retry-After in whole seconds. */
    take(caller: string): void {
      if (rate <= 0 || burst <= 0) return;
      const now = options.now();
      const bucket = buckets.get(caller) ?? { tokens: burst, at: now };
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
      bucket.at = now;
      if (buckets.size >= MAX_CALLERS && !buckets.has(caller)) buckets.clear();
      buckets.set(caller, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
      throw new DomainError(`too many requests from this caller: at most ${String(rate)} per second (burst ${String(burst)}); retry after ${String(retryAfter)} s`, 429, { 'retry-after': String(retryAfter) });
    },
  };
}
