/**
 * The fetch used for one agent: the guarded fetch under the agent entry's policy, plus the agent's
 * credential (read at call time from the environment or a file, so it never enters history), plus
 * HTTP statuses that say "authentication refused" or "try later" turned into typed errors.
 */
import { noteActivatedExtensions } from './activated-extensions';
import type { AgentEntry } from '../config/schema';
import { findOneofViolation } from '../shared/wire-checks';
import { createGuardedFetch, type Lookup } from './guarded-fetch';
import { readFileSync } from 'node:fs';
import { AgentHttpError, MalformedAnswerError, MissingCredentialError, parseRetryAfter, RETRY_STATUSES } from './agent-http-errors';
import { credentialsFor } from './agent-credentials';
import { agentTokens, type AgentTokens } from './agent-tokens';
import { policyOf } from './agent-policy';

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
  opts: {
    lookup?: Lookup;
    maxResponseBytes?: number;
    /** What the fetch is for: a card is public, so no OAuth token is fetched for it. Default call. */
    purpose?: 'card' | 'call';
    tokens?: AgentTokens;
  } = {},
): typeof fetch {
  const guarded = createGuardedFetch(policyOf(entry, opts.maxResponseBytes), {
    lookup: opts.lookup,
    ...tlsOf(entry, `agents.${agentName}`),
  });
  const tokens = opts.tokens ?? agentTokens;
  const withCredentials = entry.oauth2 && opts.purpose === 'card' ? { ...entry, oauth2: undefined } : entry;
  const send = async (input: string | URL | Request, init: RequestInit): Promise<{ res: Response; token?: string }> => {
    const creds = await credentialsFor(agentName, withCredentials, { ...(opts.lookup ? { lookup: opts.lookup } : {}), tokens });
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(creds.headers)) headers.set(k, v);
    let target = input;
    if (creds.query && (typeof input === 'string' || input instanceof URL)) {
      const url = new URL(input);
      url.searchParams.set(creds.query.name, creds.query.value);
      target = url.toString();
    }
    const res = (await guarded(target, { ...init, headers })) as unknown as Response;
    return { res, ...(creds.token ? { token: creds.token } : {}) };
  };
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    let { res, token } = await send(input, init);
    // A refused OAuth token (revoked, or expired early) is forgotten and a fresh one tried, once.
    if (
      res.status === 401 &&
      token &&
      (init.body === undefined || typeof init.body === 'string') &&
      tokens.refused(agentName, entry, token)
    ) {
      void res.body?.cancel();
      ({ res, token } = await send(input, init));
    }
    if (res.status === 401 || res.status === 403) {
      void res.body?.cancel();
      if (token) tokens.refused(agentName, entry, token);
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
    noteActivatedExtensions(res.headers);
    return checkedJson(agentName, res);
  }) as typeof fetch;
}

/** The client certificate (and CAs) the entry presents, read now, for the connection's TLS. */
export function tlsOf(entry: Pick<AgentEntry, 'tls'>, owner = 'the agent entry'): { tls?: { cert: Buffer; key: Buffer; ca?: Buffer } } {
  if (!entry.tls) return {};
  const read = (file: string, field: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new MissingCredentialError(
        `${owner}.${field} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give the worker the client certificate's files`,
      );
    }
  };
  return {
    tls: {
      cert: read(entry.tls.certFile, 'tls.certFile'),
      key: read(entry.tls.keyFile, 'tls.keyFile'),
      ...(entry.tls.caFile ? { ca: read(entry.tls.caFile, 'tls.caFile') } : {}),
    },
  };
}
