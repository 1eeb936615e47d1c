/**
 * The HTTP API (`/api/v1`, described by `/api/v1/openapi.json`) and the web app that uses it. Every
 * call but the document itself needs `Authorization: Bearer <token>`; the token names the caller,
 * and the same checks as the CLI's apply (the tenant of a delegation, the pending request id).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { serverSpan } from '../telemetry/http-server-span';
import { recordApiRequest } from '../telemetry/metrics';
import { listen } from '../runtime/listen';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { BatonClient } from '../client/baton-client';
import { asBatonError } from '../errors/as-baton-error';
import { BatonError } from '../shared/baton-error';
import type { GraphClient } from '../client/graph-client';
import { GraphNodeSpecSchema } from '../shared/graph-types';
import { projectRoot } from '../runtime/project-root';
import { recordChangeKeyOf as changeKey } from '../shared/delegation-result';
import type { Caller, DelegationRecord } from '../shared/delegation-types';
import {
  AnswerBodySchema,
  AuthorizeBodySchema,
  CancelBodySchema,
  GraphListQuerySchema,
  GraphPageQuerySchema,
  ListQuerySchema,
  partsOf,
  ReviewBodySchema,
  StartBodySchema,
} from './api-schemas';
import type { CallerTokens } from './caller-tokens';
import { codecRouter, type CodecServerOptions } from './codec-server';
import { artifactBytes } from '../artifacts/artifact-content';
import type { ArtifactStore } from '../artifacts/store';
import { openApiDocument } from './openapi';
import type { AgentEntry } from '../config/schema';
import type * as McpServerModule from '../mcp/baton-mcp-server';
import type * as McpHttpModule from '../mcp/mcp-http';
import type { McpHttp } from '../mcp/mcp-http';
import { RateLimitedError, type CallerBudget } from '../limits/caller-budget';
import { CallerGate } from '../limits/caller-gate';
import { defaultBudget } from '../limits/configured-budget';
import { InboxCache } from '../client/inbox-cache';
import { MAX_NESTING, nestsDeeperThan } from '../shared/nesting';

export interface ApiServerOptions {
  /** Clients on the Temporal connection; each request acts as its own caller through them. */
  baton: BatonClient;
  graphs: GraphClient;
  tokens: CallerTokens;
  logger: Logger;
  /** How often a status stream reads the delegation, in ms. Default 500. */
  pollMs?: number;
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
  /** Serve MCP over Streamable HTTP at `/mcp`, for the same callers, with this agent registry. Default: not served. */
  mcp?: { agents: Record<string, AgentEntry> };
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  throw new BatonError('InvalidRequest', `invalid ${what}: ${issues.join('; ')}`);
}

/** What an error means for the HTTP caller: its kind decides the status; anything unknown is a bug, not described. */
function apiErrorOf(err: unknown): BatonError {
  return asBatonError(err) ?? new BatonError('Internal', 'internal error (see the server log)');
}

/** Inbox entries: one per pending request, its prompt as the agent gave it (untrusted text). */
function inboxItem(r: DelegationRecord) {
  const p = r.pending as NonNullable<DelegationRecord['pending']>;
  // A reviewer decides on the artifacts: their names and digests come along (the content is on the delegation).
  const artifacts =
    p.kind === 'review'
      ? {
          artifacts: r.artifacts.map((a) => ({
            artifactId: a.artifactId,
            ...(a.name ? { name: a.name } : {}),
            ...(a.mediaType ? { mediaType: a.mediaType } : {}),
            size: a.size,
            sha256: a.sha256,
          })),
        }
      : {};
  return {
    delegationId: r.id,
    agent: r.agent.name,
    status: r.status,
    kind: p.kind,
    requestId: p.requestId,
    prompt: p.prompt,
    taskId: p.taskId,
    observedAt: p.observedAt,
    ...(p.credentials ? { credentials: p.credentials } : {}),
    ...artifacts,
  };
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
  const callers = new WeakMap<Request, { baton: BatonClient; graphs: GraphClient; caller: Caller }>();
  // Before any body is read: an address that has used up its unknown tokens, an unknown token, or a
  // caller past its budget is answered without reading a byte of the body.
  const authenticate = (req: Request, _res: Response, next: NextFunction): void =>
    void gate.admit(req.get('authorization'), req.ip).then((caller) => {
      callers.set(req, { baton: opts.baton.as(caller), graphs: opts.graphs.as(caller), caller });
      next();
    }, next);
  api.use(authenticate);
  const as = (req: Request) => callers.get(req) as { baton: BatonClient; graphs: GraphClient; caller: Caller };
  api.use(express.json({ limit: '1mb' }));
  // Deeper data would make later steps (history's JSON) run out of stack: refused here, as malformed.
  api.use((req, _res, next) =>
    next(nestsDeeperThan(req.body) ? new BatonError('InvalidRequest', `the body nests deeper than ${MAX_NESTING} levels`) : undefined),
  );

  /** Wraps an async handler: a rejection becomes the typed error response. */
  const handle = (fn: (req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) =>
    void fn(req, res).catch(next);
  const idOf = (req: Request): string => {
    const id = String(req.params.id ?? '');
    if (!id || id.length > 400) throw new BatonError('InvalidRequest', 'a delegation id is 1 to 400 characters');
    return id;
  };

  api.get('/whoami', (req, res) => void res.json(as(req).caller));

  api.get(
    '/delegations',
    handle(async (req, res) => {
      const q = parse(ListQuerySchema, req.query, 'query');
      res.json({ delegations: await as(req).baton.list(q) });
    }),
  );

  api.post(
    '/delegations',
    handle(async (req, res) => {
      const body = parse(StartBodySchema, req.body, 'delegation');
      await budget.startWork(as(req).caller, 1);
      const id = await as(req).baton.start({
        agent: body.agent,
        id: body.id,
        parts: partsOf(body),
        policy: body.policy,
        contextId: body.contextId,
        referenceTaskIds: body.referenceTaskIds,
        contract: body.contract,
      });
      log.info({ delegationId: id, agent: body.agent, caller: as(req).caller }, 'delegation started over HTTP');
      res
        .status(201)
        .location(`/api/v1/delegations/${encodeURIComponent(id)}`)
        .json({ id });
    }),
  );

  api.get(
    '/delegations/:id',
    handle(async (req, res) => void res.json(await as(req).baton.show(idOf(req)))),
  );

  // An artifact's bytes, whether inline in the record or stored by reference. Always as an attachment
  // of no declared type: the bytes are the agent's, and must never render in the web app's origin.
  api.get(
    '/delegations/:id/artifacts/:artifactId/content',
    handle(async (req, res) => {
      const id = idOf(req);
      const record = await as(req).baton.show(id);
      const wanted = String(req.params.artifactId ?? '');
      const artifact = record.artifacts.find((a) => a.artifactId === wanted);
      if (!artifact) throw new BatonError('NotFound', `delegation ${id} has no artifact ${wanted}`);
      const bytes = await artifactBytes(id, artifact, opts.artifacts);
      const filename = (artifact.name ?? artifact.artifactId).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'artifact';
      res.status(200).set({
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${filename}"`,
        'X-Baton-Sha256': artifact.sha256,
      });
      res.end(bytes);
    }),
  );

  api.get(
    '/delegations/:id/events',
    handle(async (req, res) => {
      const id = idOf(req);
      const baton = as(req).baton;
      let record = await baton.show(id); // not found (or foreign) answers 404 before the stream opens
      const lease = await budget.openStream(as(req).caller);
      res.once('close', () => void lease.release());
      res.status(200).set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      let closed = false;
      req.on('close', () => (closed = true));
      const send = (event: string, data: unknown): void => void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      let last = '';
      let quietSince = Date.now();
      while (!closed) {
        if (changeKey(record) !== last) {
          last = changeKey(record);
          send('status', record);
          quietSince = Date.now();
        } else if (Date.now() - quietSince > 15_000) {
          res.write(': still waiting\n\n'); // keeps proxies from closing a quiet stream
          quietSince = Date.now();
        }
        if (record.outcome) {
          send('settled', { id: record.id, outcome: record.outcome });
          break;
        }
        await new Promise((r) => setTimeout(r, pollMs));
        if (closed) break;
        try {
          record = await baton.show(id);
        } catch (err) {
          const e = apiErrorOf(err);
          send('error', { error: { type: e.kind, message: e.message } });
          break;
        }
      }
      res.end();
    }),
  );

  /**
   * The id and the caller's client. The client reads the delegation before it sends an Update, so
   * another tenant's looks absent (404), exactly as a missing one; the workflow refuses it again.
   */
  const own = (req: Request): { id: string; baton: BatonClient } => ({ id: idOf(req), baton: as(req).baton });
  api.post(
    '/delegations/:id/answer',
    handle(async (req, res) => {
      const body = parse(AnswerBodySchema, req.body, 'answer');
      const { id, baton } = own(req);
      res.json(await baton.answer(id, body.requestId, partsOf(body)));
    }),
  );
  api.post(
    '/delegations/:id/authorize',
    handle(async (req, res) => {
      const body = parse(AuthorizeBodySchema, req.body, 'authorize');
      const { id, baton } = own(req);
      res.json(await baton.authorize(id, body.requestId, body.credential));
    }),
  );
  api.post(
    '/delegations/:id/review',
    handle(async (req, res) => {
      const body = parse(ReviewBodySchema, req.body, 'review');
      const { id, baton } = own(req);
      res.json(await baton.review(id, body.requestId, body.decision, body.reason));
    }),
  );
  api.post(
    '/delegations/:id/cancel',
    handle(async (req, res) => {
      const body = parse(CancelBodySchema, req.body, 'cancel');
      const { id, baton } = own(req);
      res.json(await baton.cancel(id, body.reason));
    }),
  );

  api.get(
    '/inbox',
    handle(async (req, res) => {
      const { records, reads } = await as(req).baton.inbox({ cache: inboxCache });
      // Each delegation read costs a request: a caller with many waiting pays for reading them.
      await budget.fanOut(as(req).caller, reads);
      res.json({ requests: records.map(inboxItem) });
    }),
  );

  api.get(
    '/graphs',
    handle(async (req, res) => {
      const q = parse(GraphListQuerySchema, req.query, 'query');
      res.json({ graphs: await as(req).graphs.list(q) });
    }),
  );

  // The body is a graph spec, as `baton graph run` reads from a file (its `id` names the graph).
  api.post(
    '/graphs',
    handle(async (req, res) => {
      const caller = as(req).caller;
      const id = await as(req).graphs.start(req.body, {
        admit: (spec) => budget.startWork(caller, spec.nodes.length, `a graph of ${spec.nodes.length} nodes`),
      });
      log.info({ graphId: id, caller: as(req).caller }, 'graph started over HTTP');
      res
        .status(201)
        .location(`/api/v1/graphs/${encodeURIComponent(id)}`)
        .json({ id });
    }),
  );

  api.post(
    '/graphs/:id/nodes',
    handle(async (req, res) => {
      const node = parse(GraphNodeSpecSchema, req.body, 'node');
      await budget.startWork(as(req).caller, 1);
      const added = await as(req).graphs.addFollowUp(idOf(req), node);
      res
        .status(201)
        .location(`/api/v1/delegations/${encodeURIComponent(added.delegationId)}`)
        .json(added);
    }),
  );

  api.post(
    '/graphs/:id/cancel',
    handle(async (req, res) => {
      const body = parse(CancelBodySchema, req.body, 'cancel');
      res.json(await as(req).graphs.cancel(idOf(req), body.reason));
    }),
  );

  api.get(
    '/graphs/:id',
    handle(async (req, res) => {
      const page = parse(GraphPageQuerySchema, req.query, 'query');
      res.json(await as(req).graphs.show(idOf(req), page));
    }),
  );

  api.use((req, _res, next) => next(new BatonError('NotFound', `no API route ${req.method} ${req.path}`)));
  api.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = apiErrorOf(err);
    if (e.kind === 'Internal') log.error({ err, path: req.path }, 'API request failed');
    if (res.headersSent) return void res.end();
    if (e instanceof RateLimitedError) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    res.status(e.httpStatus).json({ error: { type: e.kind, message: e.message } });
  });
  app.use('/api/v1', api);
  if (opts.mcp) {
    const { agents } = opts.mcp;
    // Loaded at the first MCP request: the MCP SDK takes about 0.3 s to load, which no other command should pay.
    let loaded: McpHttp | undefined;
    const mcp = (): McpHttp => {
      if (loaded) return loaded;
      /* eslint-disable @typescript-eslint/no-require-imports */
      const { mcpRouter } = require('../mcp/mcp-http') as typeof McpHttpModule;
      const { createBatonMcpServer } = require('../mcp/baton-mcp-server') as typeof McpServerModule;
      /* eslint-enable @typescript-eslint/no-require-imports */
      return (loaded = mcpRouter({
        callerOf: (req) => as(req).caller,
        budget,
        serverFor: (caller) =>
          createBatonMcpServer({
            baton: opts.baton.as(caller),
            graphs: opts.graphs.as(caller),
            agents,
            artifacts: opts.artifacts,
            logger: log,
            limits: {
              startWork: (count, what) => budget.startWork(caller, count, what),
              openStream: () => budget.openStream(caller),
            },
          }),
        logger: opts.logger,
      }));
    };
    app.closeSessions = async () => loaded?.close();
    const route = (req: Request, res: Response, next: NextFunction): void => void mcp().router(req, res, next);
    app.use('/mcp', authenticate, route, (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
      const e = apiErrorOf(err);
      if (e.kind === 'Unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
      if (res.headersSent) return void res.end();
      if (e instanceof RateLimitedError) res.setHeader('Retry-After', String(e.retryAfterSeconds));
      res.status(e.httpStatus).json({ jsonrpc: '2.0', error: { code: -32000, message: `${e.kind}: ${e.message}` }, id: null });
    });
  }
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
    close: () =>
      new Promise<void>((resolve) => {
        void app.closeSessions();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
