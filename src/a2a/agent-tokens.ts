/**
 * Access tokens for agents that require OAuth 2.0: the client credentials grant (RFC 6749 §4.4) with a
 * client secret or a signed assertion (`private_key_jwt`, RFC 7523), fetched when a call needs one,
 * kept in this process per agent, endpoint and scope, fetched again shortly before it expires, and
 * once more after the agent refuses it. Tokens live only in this process's memory: never in history,
 * logs, errors or traces.
 */
import { randomUUID } from 'node:crypto';
import type { AgentOAuth } from '../config/identity-schema';
import type { AgentEntry } from '../config/schema';
import { loadJose } from '../auth/issuer-tokens';
import { AgentHttpError, MissingCredentialError } from './agent-http-errors';
import { policyOf } from './agent-policy';
import { readPrivateKey, readSecret } from '../secrets/read-secret';
import { basicAuthorization } from '../auth/basic-auth';
import { createGuardedFetch, FetchRefusedError, type Lookup } from './guarded-fetch';
import { findCause } from './cause';

interface Held {
  token: string;
  /** When it expires (ms since the epoch); it is replaced a margin before. */
  expiresAt: number;
  /** When it was fetched: the margin is a share of its lifetime. */
  fetchedAt: number;
  /** Fetched to replace a token the agent refused: if this one is refused too, the refusal is final. */
  replacement?: boolean;
}

/** Token endpoints the agents' cards named, by agent (set at resolve, when the entry allows the origin). */
const fromCards = new Map<string, string>();

/** Remembers the token endpoint `agent`'s card names (already checked against the entry's origins). */
export function rememberCardTokenUrl(agent: string, url: string): void {
  fromCards.set(agent, url);
}

/** The token endpoint for `agent`: the configured one, else the one its card named on an allowed origin. */
export function tokenUrlOf(agent: string, oauth: AgentOAuth): string {
  const url = oauth.tokenUrl ?? fromCards.get(agent);
  if (!url)
    throw new MissingCredentialError(
      `agent ${agent}: no token endpoint: set agents.${agent}.oauth2.tokenUrl, or let the card name one on an origin of agents.${agent}.oauth2.cardTokenOrigins`,
    );
  return url;
}

/** Replace a token this long before it expires: a quarter of its lifetime, at most a minute. */
const marginMs = (h: Held): number => Math.min(60_000, (h.expiresAt - h.fetchedAt) / 4);

/** An `error` code of a token endpoint (RFC 6749 §5.2), kept only when it looks like one. */
const errorCode = (body: unknown): string | undefined => {
  const e = (body as { error?: unknown } | undefined)?.error;
  return typeof e === 'string' && /^[a-z_]{1,40}$/.test(e) ? e : undefined;
};

export class AgentTokens {
  private readonly held = new Map<string, Held>();
  private readonly inFlight = new Map<string, Promise<Held>>();
  /** Keys whose token the agent refused: the next token fetched for them is a replacement. */
  private readonly refusedKeys = new Set<string>();
  /** Tokens fetched so far, by agent: for the benchmark and the tests. */
  readonly fetches = new Map<string, number>();
  /** The last tokens fetched (at most 256), for the redactor: an agent that echoes one is redacted. */
  private readonly recent: string[] = [];
  private generation = 0;

  constructor(private readonly now: () => number = Date.now) {}

  private keyOf(agent: string, oauth: AgentOAuth): string {
    return [agent, tokenUrlOf(agent, oauth), oauth.clientId, oauth.scopes.join(' '), oauth.audience ?? '', oauth.resource ?? ''].join('|');
  }

  /** A valid token for `agent`: the one held while it has more than its margin left, else a fresh one. */
  async tokenFor(agent: string, entry: AgentEntry, opts: { lookup?: Lookup } = {}): Promise<string> {
    const oauth = entry.oauth2 as AgentOAuth;
    const key = this.keyOf(agent, oauth);
    const held = this.held.get(key);
    if (held && held.expiresAt - marginMs(held) > this.now()) return held.token;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchToken(agent, entry, opts).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const fresh = await pending;
    if (this.refusedKeys.delete(key)) fresh.replacement = true;
    this.held.set(key, fresh);
    return fresh.token;
  }

  /** The tokens fetched lately, and a number that changes whenever they do. */
  known(): { generation: number; values: readonly string[] } {
    return { generation: this.generation, values: this.recent };
  }

  /**
   * The agent refused `token`: it is forgotten, so the next call fetches another. Says whether trying
   * again is worth it: not when `token` itself replaced a refused one (the refusal is the agent's word).
   */
  refused(agent: string, entry: AgentEntry, token: string): boolean {
    const key = this.keyOf(agent, entry.oauth2 as AgentOAuth);
    const held = this.held.get(key);
    if (held?.token !== token) return true;
    this.held.delete(key);
    if (held.replacement) return false;
    this.refusedKeys.add(key);
    return true;
  }

  private async clientAuth(
    agent: string,
    oauth: AgentOAuth,
    tokenUrl: string,
  ): Promise<{ headers: Record<string, string>; body: Record<string, string> }> {
    if (oauth.clientSecret) {
      const secret = readSecret(oauth.clientSecret, `agents.${agent}.oauth2.clientSecret`);
      if (oauth.authMethod === 'client_secret_post') return { headers: {}, body: { client_id: oauth.clientId, client_secret: secret } };
      return { headers: { authorization: basicAuthorization(oauth.clientId, secret) }, body: {} };
    }
    const pk = oauth.privateKeyJwt as NonNullable<AgentOAuth['privateKeyJwt']>;
    const key = readPrivateKey(pk.keyFile, `agents.${agent}.oauth2.privateKeyJwt.keyFile`);
    const { SignJWT } = await loadJose();
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: pk.alg, ...(pk.keyId ? { kid: pk.keyId } : {}) })
      .setIssuer(oauth.clientId)
      .setSubject(oauth.clientId)
      .setAudience(tokenUrl)
      .setIssuedAt()
      .setExpirationTime('60s')
      .setJti(randomUUID())
      .sign(key);
    return {
      headers: {},
      body: {
        client_id: oauth.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      },
    };
  }

  private async fetchToken(agent: string, entry: AgentEntry, opts: { lookup?: Lookup }): Promise<Held> {
    const oauth = entry.oauth2 as AgentOAuth;
    const tokenUrl = tokenUrlOf(agent, oauth);
    const where = `token endpoint ${new URL(tokenUrl).origin}`;
    const auth = await this.clientAuth(agent, oauth, tokenUrl);
    const form = new URLSearchParams({ grant_type: 'client_credentials', ...auth.body });
    if (oauth.scopes.length) form.set('scope', oauth.scopes.join(' '));
    if (oauth.audience) form.set('audience', oauth.audience);
    if (oauth.resource) form.set('resource', oauth.resource);
    // The token endpoint is reached under the agent entry's address rules, never redirected.
    const fetchImpl = createGuardedFetch(
      { ...policyOf(entry, 64 * 1024), maxRedirects: 0, owner: `agents.${agent}` },
      { lookup: opts.lookup },
    );
    const startedAt = this.now();
    let res: Response;
    try {
      res = (await fetchImpl(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...auth.headers },
        body: form.toString(),
      })) as unknown as Response;
    } catch (err) {
      if (findCause(err, FetchRefusedError)) throw err;
      // The provider down is a passing outage, like the agent down: the call is tried again.
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new AgentHttpError(503, 'retry', `${where} cannot be reached (${cause}); the call is tried again`);
    }
    const text = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.status >= 500 || res.status === 429 || res.status === 408)
      throw new AgentHttpError(503, 'retry', `${where} answered HTTP ${res.status}; the call is tried again`);
    if (!res.ok) {
      const code = errorCode(body);
      throw new AgentHttpError(
        res.status,
        'auth',
        `${where} refused the client credentials grant (HTTP ${res.status}${code ? `, ${code}` : ''}): check agents.${agent}.oauth2 (client id, secret or key, scopes)`,
      );
    }
    const token = body as { access_token?: unknown; token_type?: unknown; expires_in?: unknown } | undefined;
    if (
      typeof token?.access_token !== 'string' ||
      !token.access_token ||
      (typeof token.token_type === 'string' && token.token_type.toLowerCase() !== 'bearer')
    ) {
      const type = (res.headers.get('content-type') ?? 'no content type').split(';')[0];
      throw new MissingCredentialError(
        `${where} answered ${type}, not a bearer token: check agents.${agent}.oauth2.tokenUrl (it must be the provider's token endpoint)`,
      );
    }
    // expires_in counts whole seconds from an `iat` the provider rounded down: the token may end up to a
    // second sooner than it says.
    const said = typeof token.expires_in === 'number' && token.expires_in > 0 ? token.expires_in * 1000 : 5 * 60_000;
    const lifetime = Math.max(said - 1_000, said / 2);
    this.fetches.set(agent, (this.fetches.get(agent) ?? 0) + 1);
    this.recent.push(token.access_token);
    if (this.recent.length > 256) this.recent.shift();
    this.generation++;
    return { token: token.access_token, fetchedAt: startedAt, expiresAt: startedAt + lifetime };
  }
}

/** The tokens of this process: one cache for every agent client the worker makes. */
export const agentTokens = new AgentTokens();
