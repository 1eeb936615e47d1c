/**
 * What a caller's budget costs each request: one admission (a token bucket take) and one stream
 * lease, in this process's memory and in PostgreSQL (the store replicas share), started here on a
 * private port. Decision 0031 cites these figures.
 *
 *   node lib/bench/budget-store.js [--count 2000]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'pg';
import { MemoryBudgetStore, type BucketLimits, type BudgetStore } from '../src/limits/budget-store';
import { CallerBudget, type CallerLimits } from '../src/limits/caller-budget';
import { PostgresBudgetStore } from '../src/limits/postgres-budget-store';
import { startPostgres } from '../infra/cluster/postgres';
import { freePort } from '../src/runtime/free-port';
import { quantile } from './report-section';

const LIMITS: CallerLimits = {
  requests: { perMinute: 1_000_000, burst: 1_000_000 },
  work: { perMinute: 600, burst: 1000 },
  unknownTokens: { perMinute: 30, burst: 30 },
  streams: 1_000_000,
  sessions: 10,
};
const BUCKETS: BucketLimits = { requests: LIMITS.requests, work: LIMITS.work, 'unknown-tokens': LIMITS.unknownTokens };

async function measure(store: BudgetStore, count: number): Promise<Record<string, number>> {
  const budget = new CallerBudget(store, LIMITS);
  const callers = Array.from({ length: 50 }, (_, i) => ({ tenant: `t${i % 5}`, user: `u${i}` }));
  const admit: number[] = [];
  const lease: number[] = [];
  // Warm-up: the tables, the pool's connections.
  for (let i = 0; i < 50; i++) await budget.admit(callers[i % callers.length] as never);
  for (let i = 0; i < count; i++) {
    const caller = callers[i % callers.length] as { tenant: string; user: string };
    let t0 = performance.now();
    await budget.checkSource('127.0.0.1');
    await budget.admit(caller);
    admit.push(performance.now() - t0);
    t0 = performance.now();
    const held = await budget.openStream(caller);
    await held.release();
    lease.push(performance.now() - t0);
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, (_, i) => budget.admit(callers[i % callers.length] as never)));
  const perSecond = Math.round(count / ((performance.now() - started) / 1000));
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    admitP50Ms: r(quantile(admit, 0.5)),
    admitP99Ms: r(quantile(admit, 0.99)),
    leaseP50Ms: r(quantile(lease, 0.5)),
    leaseP99Ms: r(quantile(lease, 0.99)),
    admissionsPerSecond: perSecond,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '2000' } } });
  const count = Number(values.count);
  const memory = await measure(new MemoryBudgetStore(BUCKETS), count);
  const postgres = startPostgres(mkdtempSync(join(tmpdir(), 'bench-budget-pg-')), await freePort());
  try {
    const pool = new Pool({ connectionString: `postgres://${postgres.user}@127.0.0.1:${postgres.port}/postgres`, max: 8 });
    const store = new PostgresBudgetStore(pool, BUCKETS);
    const shared = await measure(store, count);
    await store.close();
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString().slice(0, 10), count, memory, postgres: shared }, null, 2)}\n`);
  } finally {
    postgres.stop();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`budget-store: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
