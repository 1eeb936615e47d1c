/**
 * Token buckets by key (a caller, a delegation): `perMinute` refill, `burst` at once. Memory stays
 * bounded: a bucket that has refilled is forgotten, and past `maxKeys` the oldest go first.
 */

export interface RateLimit {
  /** Sustained rate. */
  perMinute: number;
  /** How many may come at once. */
  burst: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly limit: RateLimit,
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes one for `key`: allowed, or refused with how long until one is free. */
  take(key: string, now = Date.now()): { ok: true } | { ok: false; retryAfterMs: number } {
    const perMs = this.limit.perMinute / 60_000;
    const held = this.buckets.get(key);
    const tokens = held ? Math.min(this.limit.burst, held.tokens + (now - held.at) * perMs) : this.limit.burst;
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { ok: false, retryAfterMs: Math.ceil((1 - tokens) / perMs) };
    }
    this.buckets.delete(key); // re-inserted last: the map stays in order of use
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) this.forget(now);
    return { ok: true };
  }

  /** Drops buckets that have refilled (they would start full anyway), then the least recently used. */
  private forget(now: number): void {
    const perMs = this.limit.perMinute / 60_000;
    for (const [key, b] of this.buckets) if (b.tokens + (now - b.at) * perMs >= this.limit.burst) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

/** Seconds for a `Retry-After` header: at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
