import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter, retryAfterSeconds } from '../../src/limits/rate-limit';

describe('RateLimiter', () => {
  it('allows a burst, then one per refill interval, per key', () => {
    const limiter = new RateLimiter({ perMinute: 60, burst: 2 });
    assert.deepEqual(limiter.take('a', 0), { ok: true });
    assert.deepEqual(limiter.take('a', 0), { ok: true });
    assert.deepEqual(limiter.take('a', 0), { ok: false, retryAfterMs: 1000 });
    assert.deepEqual(limiter.take('b', 0), { ok: true }, 'another key has its own bucket');
    assert.deepEqual(limiter.take('a', 500), { ok: false, retryAfterMs: 500 });
    assert.deepEqual(limiter.take('a', 1000), { ok: true }, 'one token back after a second');
    assert.equal(retryAfterSeconds(1), 1);
    assert.equal(retryAfterSeconds(1500), 2);
  });

  it('forgets full buckets and the least recently used past its size', () => {
    const limiter = new RateLimiter({ perMinute: 60, burst: 1 }, 2);
    limiter.take('a', 0);
    limiter.take('b', 0);
    limiter.take('c', 0);
    // 'a' was forgotten: it starts full again, as a new key would.
    assert.deepEqual(limiter.take('a', 0), { ok: true });
    assert.deepEqual(limiter.take('c', 0), { ok: false, retryAfterMs: 1000 }, 'the most recent ones are kept');
  });
});
