/**
 * The HTTP API (`/api/v1`, described by `/api/v1/openapi.json`) and the web app that uses it. Every
 * call but the document itself needs `Authorization: Bearer <token>`; the token names the caller,
 * and the same checks as the CLI's apply (the tenant of a delegation, the pending request id).
 */
import { DEFAULT_RIDE_OUT, type RideOut } from '../shared/ride-out';
import { SpanStatusCode } from '@opentelemetry/api';
import { serverSpan } from '../telemetry/http-server-span';
import { recordApiRequest } from '../telemetry/metrics';
import { closeServer, listen } from '../runtime/listen';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { BatonClient } from '../client/baton-client';
import { BatonError } from '../shared/baton-error';
import type { GraphClient } from '../client/graph-client';
import { projectRoot } from '../runtime/project-root';
import type { Caller } from '../shared/delegation-types';
import { apiErrorOf, type RouteKit } from './routes/route-kit';
import { delegationRoutes } from './routes/delegations';
import { graphRoutes } from './routes/graphs';
import { inboxRoutes } from './routes/inbox';
import { mountMcp } from './routes/mcp';
import { mountAgui, type AguiOptions } from './routes/agui';
import type { CallerTokens } from '../auth/caller-tokens';
import type { Callers } from '../auth/callers';
import { apiPermission, type Principal } from '../auth/permissions';
import type { OidcSignIn } from './oidc-sign-in';
import { codecRouter, type CodecServerOptions } from './codec-server';
import type { ArtifactStore } from '../artifacts/store';
import { openApiDocument } from './openapi';
import type { AgentEntry } from '../config/schema';
import { RateLimitedError, type CallerBudget } from '../limits/caller-budget';
import { CallerGate, requirePermission } from '../limits/caller-gate';
import { defaultBudget } from '../limits/configured-budget';
import { InboxCache } from '../client/inbox-cache';
import { MAX_NESTING, nestsDeeperThan } from '../shared/nesting';

export interface ApiServerOptions {
  /** Clients on the Temporal connection; each request acts as its own caller through them. */
  baton: BatonClient;
  graphs: GraphClient;
  /** Who may call: static tokens, or those and the JWTs of configured issuers. */
  tokens: CallerTokens | Callers;
  logger: Logger;
  /** Operators' OpenID Connect sign-in (`api.signIn.oidc`), with its session cookie. Default: tokens only. */
  signIn?: OidcSignIn;
  /** Baton's public signing keys, served at `/.well-known/jwks.json` (webhook JWTs). Default: not served. */
  jwks?: () => Promise<{ keys: unknown[] }>;
  /** How often a status stream reads the delegation, in ms. Default 500. */
  pollMs?: number;
  /** How long a status stream rides out Temporal not answering (`api.streamRideOut`). Default two minutes. */
  rideOut?: RideOut;
  /** Folder of the web app's files. Default `ui/` in the package; null serves the API alone. */
  uiDir?: string | null;
  /** Requests one caller may make (`api.rateLimit`), when no `budget` is given. Default 600 a minute, bursts of 120. */
  rateLimit?: { requestsPerMinute: number; burst: number };
  /** What each caller may use, shared with the process's other surfaces (configuredBudget). Default: one of its own, from `rateLimit` and the default limits. */
  budget?: CallerBudget;
  /** Proxy hops to trust for a caller's address (`api.trustProxy`). Default 0. */
  trustProxy?: number;
  /** Also serve the codec server at `/codec` (with payload encryption on and a codec token set). */
  codec?: CodecServerOptions;
  /** Where artifact bytes stored by reference are read for downloads (the configured store). Default: none, only inline artifacts. */
  artifacts?: ArtifactStore;
  /** The A2A agents Baton serves (`serve.services`), mounted at `/a2a`. Default: none. */
  servedAgents?: express.Router;
  /**
   * Serve MCP over Streamable HTTP at `/mcp`, for the same callers, with this agent registry and this
   * key for session ids (default: one of this process, so sessions end with it). Default: not served.
   */
  mcp?: { agents: Record<string, AgentEntry>; sessionKey?: Buffer };
  /** Serve AG-UI runs at `/agui` (docs/agui.md) for the same callers: delegations to these agents, graphs, these served agents. Default: not served. */
  agui?: AguiOptions;
}

export function createApiApp(opts: ApiServerOptions): express.Express & { closeSessions(): Promise<void> } {
  const app = express() as express.Express & { closeSessions(): Promise<void> };
  app.closeSessions = async () => undefined;
  const pollMs = opts.pollMs ?? 500;
  const budget = opts.budget ?? defaultBudget(opts.rateLimit);
  const gate = new CallerGate(opts.tokens, budget);
  const inboxCache = new InboxCache();
  const log = opts.logger.child({ component: 'api' });
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', opts.trustProxy ?? 0);

  app.use((_req, res, next) => {
    // The web app shows what agents wrote: no inline script or style may ever run, from anyone.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });

  const api = express.Router();
  api.use((req, res, next) => {
    const started = performance.now();
    // A caller's traceparent is continued: the delegations it starts join the caller's trace.
    const { span, within } = serverSpan(req, `API ${req.method}`);
    res.once('finish', () => {
      // The route's pattern (`/delegations/:id`), never the path: ids would make a series (and a span name) each.
      const route = req.route ? `${req.method} ${String(req.route.path)}` : 'unmatched';
      span.updateName(`API ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      recordApiRequest({ route, status: String(res.statusCode) }, (performance.now() - started) / 1000);
    });
    res.once('close', () => span.isRecording() && span.end());
    within(next);
  });
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.get('/openapi.json', (_req, res) => void res.json(openApiDocument()));

  // Everything below acts as the caller the token names.
  const callers = new WeakMap<Request, { baton: BatonClient; graphs: GraphClient; caller: Caller; principal: Principal }>();
  // A web app session (no Authorization header, the sign-in cookie), with its CSRF token on changes.
  const admit = (req: Request): Promise<Principal> => {
    const session = !req.get('authorization') ? opts.signIn?.sessionOf(req) : undefined;
    if (!session) return gate.admit(req.get('authorization'), req.ip);
    opts.signIn?.checkCsrf(req, session);
    return gate.admitKnown(session.principal);
  };
  // Before any body is read: an address that has used up its unknown tokens, an unknown token, or a
  // caller past its budget is answered without reading a byte of the body.
  const authenticate = (req: Request, _res: Response, next: NextFunction): void => {
    let admitted: Promise<Principal>;
    try {
      admitted = admit(req);
    } catch (err) {
      return next(err);
    }
    void admitted.then((principal) => {
      const { caller } = principal;
      callers.set(req, { baton: opts.baton.as(caller), graphs: opts.graphs.as(caller), caller, principal });
      next();
    }, next);
  };
  api.use(authenticate);
  api.use((req, _res, next) => {
    try {
      requirePermission((callers.get(req) as { principal: Principal }).principal, apiPermission(req.method, req.path));
      next();
    } catch (err) {
      next(err);
    }
  });
  const as = (req: Request) => callers.get(req) as { baton: BatonClient; graphs: GraphClient; caller: Caller; principal: Principal };
  api.use(express.json({ limit: '1mb' }));
  // Deeper data would make later steps (history's JSON) run out of stack: refused here, as malformed.
  api.use((req, _res, next) =>
    next(nestsDeeperThan(req.body) ? new BatonError('InvalidRequest', `the body nests deeper than ${MAX_NESTING} levels`) : undefined),
  );

  const kit: RouteKit = {
    as,
    budget,
    log,
    ...(opts.artifacts ? { artifacts: opts.artifacts } : {}),
    inboxCache,
    pollMs,
    rideOut: opts.rideOut ?? DEFAULT_RIDE_OUT,
  };
  api.get('/whoami', (req, res) => void res.json(as(req).caller));
  delegationRoutes(api, kit);
  inboxRoutes(api, kit);
  graphRoutes(api, kit);

  api.use((req, _res, next) => next(new BatonError('NotFound', `no API route ${req.method} ${req.path}`)));
  api.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = apiErrorOf(err);
    if (e.kind === 'Internal') log.error({ err, path: req.path }, 'API request failed');
    if (res.headersSent) return void res.end();
    if (e instanceof RateLimitedError) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    res.status(e.httpStatus).json({ error: { type: e.kind, message: e.message } });
  });
  app.use('/api/v1', api);
  if (opts.signIn) app.use(opts.signIn.router());
  const { jwks } = opts;
  if (jwks) app.get('/.well-known/jwks.json', (_req, res, next) => void jwks().then((k) => res.json(k), next));
  if (opts.mcp) app.closeSessions = mountMcp(app, authenticate, kit, opts, opts.mcp);
  if (opts.agui) mountAgui(app, authenticate, kit, opts.agui);
  if (opts.servedAgents) app.use('/a2a', opts.servedAgents);
  if (opts.codec) app.use('/codec', codecRouter(opts.codec));

  const uiDir = opts.uiDir === undefined ? join(projectRoot(), 'ui') : opts.uiDir;
  if (uiDir && existsSync(uiDir)) app.use(express.static(uiDir, { index: 'index.html', fallthrough: true, maxAge: 0 }));
  return app;
}

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(opts: ApiServerOptions & { host: string; port: number }): Promise<RunningApi> {
  const app = createApiApp(opts);
  const { server, port } = await listen(app, opts.host, opts.port, 'api.listen.port, or --port / --app-port');
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () => {
      void app.closeSessions();
      return closeServer(server);
    },
  };
}
