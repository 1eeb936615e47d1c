/**
 * Token-bucket arithmetic, one definition for every store that keeps buckets (this process's memory,
 * or a database the replicas share): a bucket refills at `perMinute` up to `burst`; a request takes
 * its cost when the bucket holds it; work charged after the fact may leave the bucket in debt, which
 * the caller waits off before its next request.
 */

export interface BucketLimit {
  /** Sustained rate, in units (requests, delegations started, failed sign-ins) a minute. */
  perMinute: number;
  /** How many units may go at once. */
  burst: number;
}

/** What a bucket holds: `tokens` (below zero: debt) as of `at` (ms). */
export interface BucketState {
  tokens: number;
  at: number;
}

export type Taken = { ok: true } | { ok: false; retryAfterMs: number };

/** How far below zero charges after the fact may take a bucket: one burst of debt at most. */
export const debtFloor = (limit: BucketLimit): number => -limit.burst;

/** The tokens `held` has at `now` (a missing bucket is full). */
export function tokensAt(held: BucketState | undefined, now: number, limit: BucketLimit): number {
  if (!held) return limit.burst;
  return Math.min(limit.burst, held.tokens + (Math.max(0, now - held.at) * limit.perMinute) / 60_000);
}

/** Takes `cost` at `now`: the bucket after, and whether it was taken (with how long until it could be). */
export function take(held: BucketState | undefined, cost: number, now: number, limit: BucketLimit): { state: BucketState; taken: Taken } {
  const tokens = tokensAt(held, now, limit);
  if (tokens >= cost) return { state: { tokens: tokens - cost, at: now }, taken: { ok: true } };
  return { state: { tokens, at: now }, taken: { ok: false, retryAfterMs: retryAfterMs(tokens, cost, limit) } };
}

/** Charges `cost` at `now`, whatever the bucket holds (never below the debt floor). */
export function charge(held: BucketState | undefined, cost: number, now: number, limit: BucketLimit): BucketState {
  return { tokens: Math.max(debtFloor(limit), tokensAt(held, now, limit) - cost), at: now };
}

/** How long until a bucket holding `tokens` holds `cost`, in ms. */
export function retryAfterMs(tokens: number, cost: number, limit: BucketLimit): number {
  return Math.ceil(((cost - tokens) * 60_000) / limit.perMinute);
}

/** Whether a bucket is full again at `now` (and so may be forgotten: a new one starts full). */
export const isFull = (held: BucketState, now: number, limit: BucketLimit): boolean => tokensAt(held, now, limit) >= limit.burst;

/** Seconds for a `Retry-After` header: at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
