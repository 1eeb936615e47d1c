/**
 * The caller budget a config asks for: in this process, or in the PostgreSQL database
 * `api.limits.store.postgres` names (the `pg` driver is loaded only then).
 */
import { ConfigError } from '../config/config-error';
import { LimitsSchema, type ApiConfig } from '../config/schema';
import { MemoryBudgetStore, type BucketLimits, type BudgetStore } from './budget-store';
import { CallerBudget, type CallerLimits } from './caller-budget';

export function callerLimitsOf(api: Pick<ApiConfig, 'rateLimit' | 'limits'>): CallerLimits {
  return {
    requests: { perMinute: api.rateLimit.requestsPerMinute, burst: api.rateLimit.burst },
    work: api.limits.workStarted,
    unknownTokens: api.limits.unknownTokens,
    streams: api.limits.streams,
    sessions: api.limits.mcpSessions,
  };
}

export function configuredBudget(api: Pick<ApiConfig, 'rateLimit' | 'limits'>, env: NodeJS.ProcessEnv = process.env): CallerBudget {
  const limits = callerLimitsOf(api);
  const buckets: BucketLimits = { requests: limits.requests, work: limits.work, 'unknown-tokens': limits.unknownTokens };
  let store: BudgetStore = new MemoryBudgetStore(buckets);
  const postgres = api.limits.store?.postgres;
  const problem = limitsStoreProblem(api, env);
  if (problem) throw new ConfigError(problem);
  if (postgres) {
    const url = env[postgres.urlFromEnv] as string;
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { Pool } = require('pg') as typeof import('pg');
    const { PostgresBudgetStore } = require('./postgres-budget-store') as typeof import('./postgres-budget-store');
    /* eslint-enable @typescript-eslint/no-require-imports */
    store = new PostgresBudgetStore(new Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 5_000 }), buckets);
  }
  return new CallerBudget(store, limits);
}

/** What is wrong with `api.limits.store` as set in `env`: a PostgreSQL store whose URL variable is unset. */
export function limitsStoreProblem(api: Pick<ApiConfig, 'limits'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const postgres = api.limits.store?.postgres;
  return postgres && !env[postgres.urlFromEnv]
    ? `api.limits.store.postgres: ${postgres.urlFromEnv} is not set; set it to the connection URL of the database every replica of baton ui and baton serve shares (postgres://user@host:port/db)`
    : undefined;
}

/** A budget of the default limits in this process, with `rateLimit` for requests (embedding and tests). */
export function defaultBudget(
  rateLimit: { requestsPerMinute: number; burst: number } = { requestsPerMinute: 600, burst: 120 },
): CallerBudget {
  return configuredBudget({ rateLimit, limits: LimitsSchema.parse({}) });
}
