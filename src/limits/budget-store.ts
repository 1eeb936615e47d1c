/**
 * Where the budgets of callers are kept: token buckets (requests, work started, failed sign-ins) and
 * leases (open streams, MCP sessions). In this process by default; in a database every replica of
 * `baton ui` and `baton serve` shares when `api.limits.store` names one (postgres-budget-store.ts),
 * so N replicas do not give a caller N times its budget.
 */
import { randomUUID } from 'node:crypto';
import { RateLimiter } from './rate-limit';
import type { BucketLimit, Taken } from './token-bucket';

/** The buckets a caller (or a source address) has. */
export type BucketName = 'requests' | 'work' | 'unknown-tokens';

/** The things a caller holds open, each up to a maximum. */
export type LeaseKind = 'streams' | 'sessions';

/** One stream or session held open; released when it ends. */
export interface Lease {
  release(): Promise<void>;
}

export interface BudgetStore {
  /** Takes `cost` from `key`'s bucket when it holds that much. */
  take(bucket: BucketName, key: string, cost: number): Promise<Taken>;
  /** Charges `cost` more after the fact (work a request fanned out to): the bucket may go into debt. */
  charge(bucket: BucketName, key: string, cost: number): Promise<void>;
  /** Whether `key`'s bucket holds `cost`, without taking it. */
  holds(bucket: BucketName, key: string, cost: number): Promise<Taken>;
  /** One of at most `max` leases of `kind` for `key`, or undefined when all are held. */
  lease(kind: LeaseKind, key: string, max: number): Promise<Lease | undefined>;
  close(): Promise<void>;
}

export type BucketLimits = Record<BucketName, BucketLimit>;

/** The budgets in this process's memory: the default, right for one replica. */
export class MemoryBudgetStore implements BudgetStore {
  private readonly buckets: Record<BucketName, RateLimiter>;
  private readonly held = new Map<string, Set<string>>();

  constructor(limits: BucketLimits) {
    this.buckets = {
      requests: new RateLimiter(limits.requests),
      work: new RateLimiter(limits.work),
      'unknown-tokens': new RateLimiter(limits['unknown-tokens']),
    };
  }

  take(bucket: BucketName, key: string, cost: number): Promise<Taken> {
    return Promise.resolve(this.buckets[bucket].take(key, Date.now(), cost));
  }

  charge(bucket: BucketName, key: string, cost: number): Promise<void> {
    this.buckets[bucket].charge(key, cost);
    return Promise.resolve();
  }

  holds(bucket: BucketName, key: string, cost: number): Promise<Taken> {
    return Promise.resolve(this.buckets[bucket].holds(key, cost));
  }

  lease(kind: LeaseKind, key: string, max: number): Promise<Lease | undefined> {
    const name = `${kind}|${key}`;
    const set = this.held.get(name) ?? new Set<string>();
    if (set.size >= max) return Promise.resolve(undefined);
    const id = randomUUID();
    set.add(id);
    this.held.set(name, set);
    return Promise.resolve({
      release: () => {
        set.delete(id);
        if (!set.size && this.held.get(name) === set) this.held.delete(name);
        return Promise.resolve();
      },
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
