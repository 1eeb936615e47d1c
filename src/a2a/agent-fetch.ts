/**
 * The fetch used for one agent: the guarded fetch under the agent entry's policy, plus the agent's
 * credential (read at call time from the environment or a file, so it never enters history), plus
 * HTTP statuses that say "authentication refused" or "try later" turned into typed errors.
 */
import { readFileSync } from 'node:fs';
import type { AgentAuth, AgentEntry } from '../config/schema';
import { findOneofViolation } from '../shared/wire-checks';
import { createGuardedFetch, type FetchPolicy, type Lookup } from './guarded-fetch';

/** An HTTP answer that decides the outcome by its status alone. */
export class AgentHttpError extends Error {
  /** The kind an HTTP status alone says: 401/403 auth, other 4xx refused, 408, 429 and 5xx retry. */
  static forStatus(status: number, message: string, retryAfterMs?: number): AgentHttpError {
    const kind = status === 401 || status === 403 ? 'auth' : status >= 500 || RETRY_STATUSES.has(status) ? 'retry' : 'refused';
    return new AgentHttpError(status, kind, message, retryAfterMs);
  }

  constructor(
    readonly status: number,
    readonly kind: 'auth' | 'refused' | 'retry',
    message: string,
    /** From `Retry-After`, when the agent sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'AgentHttpError';
  }
}

/** A credential that cannot be read: a configuration problem, not the agent's. */
export class MissingCredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingCredentialError';
  }
}

const RETRY_STATUSES = new Set([408, 429, 502, 503, 504]);

/** Parses `Retry-After` (seconds or an HTTP date) into ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function policyOf(entry: AgentEntry, maxResponseBytes = entry.limits.maxResponseBytes): FetchPolicy {
  return {
    allowHttp: entry.allowHttp,
    allowPrivateNetwork: entry.allowPrivateNetwork,
    maxResponseBytes,
    connectTimeoutMs: entry.limits.connectTimeoutMs,
    readTimeoutMs: entry.limits.readTimeoutMs,
    maxRedirects: entry.limits.maxRedirects,
  };
}

/**
 * Reads a secret now from its variable or file; `field` names where it is configured (for the
 * message). Throws MissingCredentialError naming the variable or file; never says the value.
 */
export function readSecret(source: { fromEnv?: string; fromFile?: string }, field: string): string {
  if (source.fromEnv) {
    const value = process.env[source.fromEnv];
    if (!value) throw new MissingCredentialError(`${field}.fromEnv names ${source.fromEnv}, which is not set`);
    return value;
  }
  if (!source.fromFile) throw new MissingCredentialError(`${field} names neither fromEnv nor fromFile`);
  let value: string;
  try {
    value = readFileSync(source.fromFile, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new MissingCredentialError(`${field}.fromFile ${source.fromFile} cannot be read (${(err as Error).message})`);
  }
  if (!value) throw new MissingCredentialError(`${field}.fromFile ${source.fromFile} is empty`);
  return value;
}

/** Reads the agent's own credential (`auth`) now. Throws MissingCredentialError naming the variable or file. */
export function credentialOf(agentName: string, auth: AgentAuth): string {
  return authValueOf(auth, `agent ${agentName}: auth`);
}

/** The value of an `auth` header (its scheme, then the secret read now); `field` names where it is configured. */
export function authValueOf(auth: AgentAuth, field: string): string {
  const value = readSecret(auth, field);
  return auth.scheme ? `${auth.scheme} ${value}` : value;
}

/** An answer whose JSON breaks the protocol's shape before any reader sees it. */
export class MalformedAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedAnswerError';
  }
}

/**
 * Reads a JSON (non-stream) body, refuses it when an object carries several oneof members, and hands
 * on the same bytes. Streams pass through: their events are validated one by one after the SDK.
 */
async function checkedJson(agentName: string, res: Response): Promise<Response> {
  const type = res.headers.get('content-type') ?? '';
  if (!/json/i.test(type) || !res.body) return res;
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  // The SDK reads fields off the answer as it converts it: a `"result": null` (or a body that is not an
  // object) would fail inside it as an untyped TypeError, indistinguishable from a network fault.
  const notObject = (v: unknown): boolean => typeof v !== 'object' || v === null || Array.isArray(v);
  if (notObject(json)) throw new MalformedAnswerError(`agent ${agentName}: malformed answer: the body is not a JSON object`);
  if ('result' in (json as object) && notObject((json as { result: unknown }).result)) {
    throw new MalformedAnswerError(`agent ${agentName}: malformed answer: its JSON-RPC "result" is not an object`);
  }
  const violation = findOneofViolation(json);
  if (violation) throw new MalformedAnswerError(`agent ${agentName}: malformed answer: ${violation}`);
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
}

export function createAgentFetch(
  agentName: string,
  entry: AgentEntry,
  opts: { lookup?: Lookup; maxResponseBytes?: number } = {},
): typeof fetch {
  const guarded = createGuardedFetch(policyOf(entry, opts.maxResponseBytes), { lookup: opts.lookup });
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (entry.auth) headers.set(entry.auth.header, credentialOf(agentName, entry.auth));
    const res = await guarded(input, { ...init, headers });
    if (res.status === 401 || res.status === 403) {
      void res.body?.cancel();
      throw new AgentHttpError(res.status, 'auth', `agent ${agentName}: authentication refused (HTTP ${res.status})`);
    }
    if (RETRY_STATUSES.has(res.status)) {
      void res.body?.cancel();
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      throw new AgentHttpError(
        res.status,
        'retry',
        `agent ${agentName}: HTTP ${res.status}${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}`,
        retryAfterMs,
      );
    }
    return checkedJson(agentName, res);
  }) as typeof fetch;
}
