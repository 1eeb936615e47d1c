/**
 * What a call to an agent (or to its identity provider) can answer that decides the outcome before
 * any A2A reading: an HTTP status, a credential that cannot be read, an answer of the wrong shape.
 * `errors.ts` maps each onto the failure taxonomy.
 */

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

export const RETRY_STATUSES = new Set([408, 429, 502, 503, 504]);

/** Parses `Retry-After` (seconds or an HTTP date) into ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** An answer whose JSON breaks the protocol's shape before any reader sees it. */
export class MalformedAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedAnswerError';
  }
}
