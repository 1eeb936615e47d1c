/**
 * Operators sign in to the web app with OpenID Connect: the authorization code flow with PKCE (S256),
 * `state` and `nonce`, the ID token verified against the provider's published keys, and a session
 * kept in this process behind an HttpOnly, SameSite=Lax cookie (Secure beyond loopback). Every
 * state-changing request of a session carries its CSRF token in `X-CSRF-Token`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { msToNumber } from '@temporalio/common';
import type { OidcSignInConfig } from '../config/identity-schema';
import { basicAuthorization } from '../auth/basic-auth';
import { readDiscovery, type Discovery } from '../auth/discovery';
import { loadJose, principalOf } from '../auth/issuer-tokens';
import type { Principal } from '../auth/permissions';
import { readSecret } from '../secrets/read-secret';
import { BatonError } from '../shared/baton-error';
import { RateLimitedError, type CallerBudget } from '../limits/caller-budget';

export const SESSION_COOKIE = 'baton_session';
const MAX_PENDING = 1_000;
const MAX_SESSIONS = 10_000;
const PENDING_MS = 10 * 60_000;

export interface WebSession {
  principal: Principal;
  csrf: string;
  expiresAt: number;
}

const b64url = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** The value of cookie `name` in a Cookie header. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

const sameText = (a: string, b: string): boolean => {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
};

export class OidcSignIn {
  private discovery?: Promise<Discovery>;
  private keys?: Promise<unknown>;
  private readonly pending = new Map<string, { verifier: string; nonce: string; at: number }>();
  private readonly sessions = new Map<string, WebSession>();
  private readonly log: Logger;

  constructor(
    private readonly config: OidcSignInConfig,
    private readonly opts: {
      /** The web app's URL (for the default callback). */
      baseUrl: () => string;
      /** Mark the cookie Secure: beyond loopback. */
      secureCookie: boolean;
      logger: Logger;
      /** Counts each `/auth` request: a session's against its caller, others against their address. Default: not counted. */
      budget?: Pick<CallerBudget, 'checkSource' | 'unknownToken' | 'admit'>;
    },
  ) {
    this.log = opts.logger.child({ component: 'oidc-sign-in' });
  }

  private get redirectUrl(): string {
    return this.config.redirectUrl ?? `${this.opts.baseUrl()}/auth/oidc/callback`;
  }

  private discover(): Promise<Discovery> {
    this.discovery ??= readDiscovery(this.config.issuer, ['authorization_endpoint', 'token_endpoint', 'jwks_uri']);
    this.discovery.catch(() => (this.discovery = undefined));
    return this.discovery;
  }

  /** The session a request's cookie names, while it lasts. */
  sessionOf(req: Request): WebSession | undefined {
    const id = cookieOf(req.get('cookie'), SESSION_COOKIE);
    if (!id || id.length > 100) return undefined;
    const s = this.sessions.get(id);
    if (s && s.expiresAt <= Date.now()) this.sessions.delete(id);
    return s && s.expiresAt > Date.now() ? s : undefined;
  }

  /** Throws Forbidden when a state-changing request of `session` lacks its CSRF token. */
  checkCsrf(req: Request, session: WebSession): void {
    if (req.method === 'GET' || req.method === 'HEAD') return;
    const given = req.get('x-csrf-token') ?? '';
    if (!given || !sameText(given, session.csrf))
      throw new BatonError('Forbidden', "this request changes something and lacks the session's X-CSRF-Token: reload the page");
  }

  private cookie(id: string, maxAgeSeconds: number): string {
    return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${this.opts.secureCookie ? '; Secure' : ''}`;
  }

  private failed(res: Response, why: string): void {
    res.status(400).type('text/plain').send(`sign-in failed: ${why}; start again at /auth/oidc/start`);
  }

  /**
   * Every `/auth` request is counted like any other: one with a live session against its caller's
   * budget, one without (a sign-in under way) against its address's allowance for unknown callers;
   * 429 past either.
   */
  private counted(step: (req: Request, res: Response) => void): express.RequestHandler {
    const budget = this.opts.budget;
    return (req, res) => {
      if (!budget) return step(req, res);
      const session = this.sessionOf(req);
      const charge = session ? budget.admit(session.principal.caller) : budget.checkSource(req.ip).then(() => budget.unknownToken(req.ip));
      void charge.then(
        () => step(req, res),
        (err: unknown) => {
          if (err instanceof RateLimitedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
          res.status(429).type('text/plain').send('too many requests from this address or caller: wait, then try again');
        },
      );
    };
  }

  router(): express.Router {
    const r = express.Router();
    r.get('/auth/config', (_req, res) => void res.json({ oidc: { issuer: this.config.issuer } }));
    r.get(
      '/auth/oidc/start',
      this.counted((_req, res) => {
        void this.discover().then(
          (d) => {
            const state = b64url(24);
            const nonce = b64url(24);
            const verifier = b64url(48);
            if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
            this.pending.set(state, { verifier, nonce, at: Date.now() });
            const url = new URL(d.authorization_endpoint as string);
            url.search = new URLSearchParams({
              response_type: 'code',
              client_id: this.config.clientId,
              redirect_uri: this.redirectUrl,
              scope: this.config.scopes.join(' '),
              state,
              nonce,
              code_challenge: createHash('sha256').update(verifier).digest('base64url'),
              code_challenge_method: 'S256',
            }).toString();
            res.redirect(302, url.toString());
          },
          (err: unknown) => {
            this.log.warn({ issuer: this.config.issuer, why: (err as Error).message }, 'OpenID provider unavailable');
            res.status(503).type('text/plain').send('sign-in is unavailable: the OpenID provider cannot be reached; try again shortly');
          },
        );
      }),
    );
    r.get(
      '/auth/oidc/callback',
      this.counted((req, res) => {
        void this.callback(req, res).catch((err: unknown) => {
          this.log.warn({ why: (err as Error).message }, 'OpenID sign-in failed');
          if (!res.headersSent) this.failed(res, (err as Error).message.slice(0, 200));
        });
      }),
    );
    r.get(
      '/auth/session',
      this.counted((req, res) => {
        const s = this.sessionOf(req);
        if (!s) return void res.status(401).json({ signedIn: false });
        res.setHeader('Cache-Control', 'no-store');
        res.json({ signedIn: true, ...s.principal.caller, csrf: s.csrf });
      }),
    );
    r.post(
      '/auth/sign-out',
      this.counted((req, res) => {
        const s = this.sessionOf(req);
        if (s) {
          try {
            this.checkCsrf(req, s);
          } catch (err) {
            return void res.status(403).json({ error: { type: 'Forbidden', message: (err as Error).message } });
          }
          this.sessions.delete(cookieOf(req.get('cookie'), SESSION_COOKIE) as string);
        }
        res.setHeader('Set-Cookie', this.cookie('', 0));
        res.json({ signedIn: false });
      }),
    );
    return r;
  }

  private async callback(req: Request, res: Response): Promise<void> {
    const { code, state, error } = req.query as Record<string, string | undefined>;
    if (error) return this.failed(res, `the provider answered ${String(error).slice(0, 60)}`);
    const pending = state ? this.pending.get(state) : undefined;
    if (state) this.pending.delete(state);
    if (!code || !pending || Date.now() - pending.at > PENDING_MS) return this.failed(res, 'the sign-in is unknown or expired');
    const d = await this.discover();
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.redirectUrl,
      code_verifier: pending.verifier,
    });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (this.config.clientSecret) {
      const secret = readSecret(this.config.clientSecret, 'api.signIn.oidc.clientSecret');
      headers.authorization = basicAuthorization(this.config.clientId, secret);
    } else body.set('client_id', this.config.clientId);
    const tokenRes = await fetch(d.token_endpoint as string, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    const tokens = (await tokenRes.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
    if (!tokenRes.ok || typeof tokens.id_token !== 'string')
      return this.failed(
        res,
        `the provider did not give an ID token (HTTP ${tokenRes.status}${typeof tokens.error === 'string' ? `, ${tokens.error.slice(0, 60)}` : ''})`,
      );
    const jose = await loadJose();
    this.keys ??= Promise.resolve(jose.createRemoteJWKSet(new URL(d.jwks_uri), { cooldownDuration: 30_000 }));
    const { payload } = await jose.jwtVerify(tokens.id_token, (await this.keys) as ReturnType<typeof jose.createRemoteJWKSet>, {
      issuer: this.config.issuer,
      audience: this.config.clientId,
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockTolerance: 5,
    });
    if (payload.nonce !== pending.nonce) return this.failed(res, 'the ID token is for another sign-in (nonce)');
    const principal = principalOf(payload, this.config, new Set(this.config.permissions), 'session');
    if (!principal)
      return this.failed(
        res,
        `the ID token does not name a tenant and user (${this.config.tenantClaim ?? 'tenant'}, ${this.config.userClaim})`,
      );
    const ttlMs = msToNumber(this.config.sessionTtl as `${number}s`);
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    const id = b64url(32);
    this.sessions.set(id, { principal, csrf: b64url(24), expiresAt: Date.now() + ttlMs });
    this.log.info({ caller: principal.caller }, 'operator signed in with OpenID Connect');
    res.setHeader('Set-Cookie', this.cookie(id, Math.floor(ttlMs / 1000)));
    res.redirect(302, '/');
  }
}
