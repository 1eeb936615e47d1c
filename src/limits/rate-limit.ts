/**
 * Token buckets by key, kept in this process (the push webhook's per-delegation allowance, and the
 * in-process budget store): `perMinute` refill, `burst` at once. Memory stays bounded: a bucket that
 * has refilled is forgotten, and past `maxKeys` the least recently used go first.
 */
import { charge, isFull, take, type BucketLimit, type BucketState, type Taken } from './token-bucket';

export { retryAfterSeconds } from './token-bucket';

/** A limit as `RateLimiter` was first given one. */
export type RateLimit = BucketLimit;

export class RateLimiter {
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    readonly limit: RateLimit,
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes `cost` (default one) for `key`: allowed, or refused with how long until it would be. */
  take(key: string, now = Date.now(), cost = 1): Taken {
    const after = take(this.buckets.get(key), cost, now, this.limit);
    this.keep(key, after.state, now);
    return after.taken;
  }

  /** Charges `cost` more to `key` after the fact: the bucket may go into debt. */
  charge(key: string, cost: number, now = Date.now()): void {
    this.keep(key, charge(this.buckets.get(key), cost, now, this.limit), now);
  }

  /** Whether `key`'s bucket holds at least `cost` now, without taking it. */
  holds(key: string, cost = 1, now = Date.now()): Taken {
    return take(this.buckets.get(key), cost, now, this.limit).taken;
  }

  private keep(key: string, state: BucketState, now: number): void {
    this.buckets.delete(key); // re-inserted last: the map stays in order of use
    this.buckets.set(key, state);
    if (this.buckets.size > this.maxKeys) this.forget(now);
  }

  /** Drops buckets that have refilled (they would start full anyway), then the least recently used. */
  private forget(now: number): void {
    for (const [key, b] of this.buckets) if (isFull(b, now, this.limit)) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}
