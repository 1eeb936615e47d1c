/**
 * The budgets in PostgreSQL, shared by every replica of `baton ui` and `baton serve` (`api.limits.store`).
 * A bucket is one row, taken or charged by one statement (the row lock orders replicas); time is the
 * database's, so replicas' clocks need not agree. A lease is a row that expires unless the process
 * holding it renews it, so a replica that dies gives its callers' streams and sessions back within a
 * minute.
 */
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { BucketLimits, BucketName, BudgetStore, Lease, LeaseKind } from './budget-store';
import { debtFloor, retryAfterMs, type Taken } from './token-bucket';

/** A lease lives this long unless renewed; held ones are renewed every third of it. */
const LEASE_SECONDS = 60;

/** Tables Baton creates in the database it is given (and nothing else). */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS baton_budget_buckets (
  key text PRIMARY KEY,
  tokens double precision NOT NULL,
  at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS baton_budget_leases (
  key text NOT NULL,
  holder text NOT NULL,
  expires timestamptz NOT NULL,
  PRIMARY KEY (key, holder)
);`;

/** The tokens a row holds now: $2 burst, $3 tokens a second. */
const REFILLED = `LEAST($2::float8, b.tokens + EXTRACT(EPOCH FROM (now() - b.at)) * $3::float8)`;

export class PostgresBudgetStore implements BudgetStore {
  private readonly held = new Set<string>();
  private readonly renewal: NodeJS.Timeout;
  private ready?: Promise<void>;

  constructor(
    private readonly pool: Pool,
    private readonly limits: BucketLimits,
  ) {
    this.renewal = setInterval(() => void this.renew(), (LEASE_SECONDS * 1000) / 3);
    this.renewal.unref();
  }

  /** Creates the tables once (every replica may try: CREATE … IF NOT EXISTS under one advisory lock). */
  private schema(): Promise<void> {
    this.ready ??= this.inTransaction(async (db) => {
      await db.query('SELECT pg_advisory_xact_lock(4922004)');
      await db.query(SCHEMA);
    }).catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  private params(bucket: BucketName, key: string): [string, number, number] {
    const limit = this.limits[bucket];
    return [`${bucket}|${key}`, limit.burst, limit.perMinute / 60];
  }

  async take(bucket: BucketName, key: string, cost: number): Promise<Taken> {
    await this.schema();
    const params = this.params(bucket, key);
    // A new key starts full; a known one refills, and is taken from only when it holds the cost.
    const taken = await this.pool.query(
      `INSERT INTO baton_budget_buckets AS b (key, tokens, at) VALUES ($1, $2::float8 - $4::float8, now())
       ON CONFLICT (key) DO UPDATE SET tokens = ${REFILLED} - $4::float8, at = now()
       WHERE ${REFILLED} >= $4::float8
       RETURNING tokens`,
      [...params, cost],
    );
    if (taken.rowCount) return { ok: true };
    return { ok: false, retryAfterMs: retryAfterMs(await this.tokens(params), cost, this.limits[bucket]) };
  }

  async charge(bucket: BucketName, key: string, cost: number): Promise<void> {
    await this.schema();
    const params = this.params(bucket, key);
    await this.pool.query(
      `INSERT INTO baton_budget_buckets AS b (key, tokens, at) VALUES ($1, GREATEST($5::float8, $2::float8 - $4::float8), now())
       ON CONFLICT (key) DO UPDATE SET tokens = GREATEST($5::float8, ${REFILLED} - $4::float8), at = now()`,
      [...params, cost, debtFloor(this.limits[bucket])],
    );
  }

  async holds(bucket: BucketName, key: string, cost: number): Promise<Taken> {
    await this.schema();
    const params = this.params(bucket, key);
    const tokens = await this.tokens(params);
    return tokens >= cost ? { ok: true } : { ok: false, retryAfterMs: retryAfterMs(tokens, cost, this.limits[bucket]) };
  }

  private async tokens(params: [string, number, number]): Promise<number> {
    const row = await this.pool.query<{ tokens: number }>(
      `SELECT ${REFILLED} AS tokens FROM baton_budget_buckets b WHERE key = $1`,
      params,
    );
    return row.rows[0]?.tokens ?? params[1];
  }

  async lease(kind: LeaseKind, key: string, max: number): Promise<Lease | undefined> {
    await this.schema();
    const name = `${kind}|${key}`;
    const holder = randomUUID();
    const got = await this.inTransaction(async (db) => {
      // One acquirer per key at a time, across replicas: the count and the insert cannot interleave.
      await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [name]);
      await db.query('DELETE FROM baton_budget_leases WHERE key = $1 AND expires < now()', [name]);
      const inserted = await db.query(
        `INSERT INTO baton_budget_leases (key, holder, expires)
         SELECT $1, $2, now() + make_interval(secs => $4)
         WHERE (SELECT count(*) FROM baton_budget_leases WHERE key = $1) < $3
         RETURNING holder`,
        [name, holder, max, LEASE_SECONDS],
      );
      return (inserted.rowCount ?? 0) > 0;
    });
    if (!got) return undefined;
    this.held.add(holder);
    return {
      release: async () => {
        if (!this.held.delete(holder)) return;
        await this.pool.query('DELETE FROM baton_budget_leases WHERE key = $1 AND holder = $2', [name, holder]);
      },
    };
  }

  /** Keeps this process's leases alive; expired buckets' rows go too (a full bucket needs no row). */
  private async renew(): Promise<void> {
    try {
      if (this.held.size)
        await this.pool.query(`UPDATE baton_budget_leases SET expires = now() + make_interval(secs => $2) WHERE holder = ANY($1)`, [
          [...this.held],
          LEASE_SECONDS,
        ]);
      await this.pool.query(`DELETE FROM baton_budget_buckets WHERE at < now() - interval '1 day'`);
    } catch {
      // The next round tries again; a lease not renewed for a minute is given back, which errs for the callers.
    }
  }

  private async inTransaction<T>(fn: (db: PoolClient) => Promise<T>): Promise<T> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const out = await fn(db);
      await db.query('COMMIT');
      return out;
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      db.release();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    const held = [...this.held];
    this.held.clear();
    if (held.length) await this.pool.query('DELETE FROM baton_budget_leases WHERE holder = ANY($1)', [held]).catch(() => undefined);
    await this.pool.end();
  }
}
