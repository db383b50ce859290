import { parseDuration } from '../../core/config/duration.js';
import { InvalidInputError } from '../../core/errors.js';
import type { RateLimitConfig } from '../workloads/schemas.js';

type BucketConfig = NonNullable<RateLimitConfig['shared']>;

interface Bucket {
  tokens: number;
  at: number;
}

/** One limit: a bucket size and a continuous refill rate (the whole bucket refills in refillPeriod). */
interface Limit {
  readonly label: string;
  readonly capacity: number;
  readonly perMs: number;
}

function limitOf(config: BucketConfig, label: string): Limit {
  const periodMs = parseDuration(config.refillPeriod);
  if (periodMs === undefined || periodMs <= 0) {
    throw new InvalidInputError(`rate limit refillPeriod must be a positive duration such as 1m, got ${config.refillPeriod}`);
  }
  return { label, capacity: config.maxTokens, perMs: config.maxTokens / periodMs };
}

/** Tops the bucket up for the time elapsed since it was last touched. */
function refill(bucket: Bucket, limit: Limit, now: number): void {
  if (now > bucket.at) bucket.tokens = Math.min(limit.capacity, bucket.tokens + (now - bucket.at) * limit.perMs);
  bucket.at = now;
}

const MIN_PRUNE_SIZE = 1024;

/**
 * Per-user buckets. A bucket that has refilled completely is the same as a new one, so those are
 * dropped whenever the map has doubled since the last pass: memory follows the users who are
 * actually being limited, not every user ever seen.
 */
export class PerUserBuckets {
  readonly #limit: Limit;
  readonly #buckets = new Map<string, Bucket>();
  #pruneAt = MIN_PRUNE_SIZE;

  constructor(limit: Limit) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#buckets.size;
  }

  get(user: string, now: number): Bucket {
    let bucket = this.#buckets.get(user);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#pruneAt) this.#prune(now);
      bucket = { tokens: this.#limit.capacity, at: now };
      this.#buckets.set(user, bucket);
    }
    return bucket;
  }

  #prune(now: number): void {
    for (const [user, bucket] of this.#buckets) {
      refill(bucket, this.#limit, now);
      if (bucket.tokens >= this.#limit.capacity) this.#buckets.delete(user);
    }
    this.#pruneAt = Math.max(MIN_PRUNE_SIZE, this.#buckets.size * 2);
  }
}

interface LimitSet {
  shared?: { limit: Limit; bucket: Bucket } | undefined;
  perUser?: { limit: Limit; buckets: PerUserBuckets } | undefined;
}

export interface RateLimitRefusal {
  /** Names the limit that was hit, e.g. "per-user limit for tool echo". */
  limit: string;
  /** Whole seconds until every exceeded bucket has a token again (at least 1). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Takes one token from every limit that applies to a call of `tool` by `user`, or none when one is empty. */
  take: (tool: string | undefined, user: string) => RateLimitRefusal | undefined;
}

function limitSet(config: { shared?: BucketConfig | undefined; perUser?: BucketConfig | undefined }, suffix: string, now: number): LimitSet {
  const shared = config.shared === undefined ? undefined : limitOf(config.shared, `shared limit${suffix}`);
  const perUser = config.perUser === undefined ? undefined : limitOf(config.perUser, `per-user limit${suffix}`);
  return {
    shared: shared === undefined ? undefined : { limit: shared, bucket: { tokens: shared.capacity, at: now } },
    perUser: perUser === undefined ? undefined : { limit: perUser, buckets: new PerUserBuckets(perUser) },
  };
}

export function createRateLimiter(config: RateLimitConfig, clock: () => number): RateLimiter {
  const start = clock();
  const global = limitSet(config, '', start);
  const byTool = new Map<string, LimitSet>();
  for (const tool of config.tools ?? []) byTool.set(tool.name, limitSet(tool, ` for tool ${tool.name}`, start));

  // Most specific first, so the refusal names the limit the caller can do something about.
  const applicable = (tool: string | undefined, user: string, now: number): [Limit, Bucket][] => {
    const found: [Limit, Bucket][] = [];
    const perTool = tool === undefined ? undefined : byTool.get(tool);
    for (const set of perTool === undefined ? [global] : [perTool, global]) {
      if (set.perUser !== undefined) found.push([set.perUser.limit, set.perUser.buckets.get(user, now)]);
      if (set.shared !== undefined) found.push([set.shared.limit, set.shared.bucket]);
    }
    return found;
  };

  return {
    take: (tool, user) => {
      const now = clock();
      const buckets = applicable(tool, user, now);
      let refusal: RateLimitRefusal | undefined;
      for (const [limit, bucket] of buckets) {
        refill(bucket, limit, now);
        if (bucket.tokens >= 1) continue;
        const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perMs / 1000));
        if (refusal === undefined) refusal = { limit: limit.label, retryAfterSeconds: seconds };
        else refusal.retryAfterSeconds = Math.max(refusal.retryAfterSeconds, seconds);
      }
      if (refusal !== undefined) return refusal;
      for (const [, bucket] of buckets) bucket.tokens -= 1;
      return undefined;
    },
  };
}
