/**
 * The served agents over HTTP, each at `<base>/a2a/<name>`: its card at `/.well-known/agent-card.json`
 * (public), JSON-RPC at `/jsonrpc` and HTTP+JSON at `/rest` (the official SDK's transports over
 * Baton's request handler). Every call but the card needs a bearer token of `api.callers`; the token
 * names the caller, whose tenant scopes every read.
 */
import { traceRequests } from '../telemetry/http-server-span';
import { recordServedRequest } from '../telemetry/metrics';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { servedCardHandler } from './served-card';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { RateLimitedError } from '../limits/caller-budget';
import { requirePermission, type CallerGate } from '../limits/caller-gate';
import { jsonRpcPermission, restPermission, type Principal } from '../auth/permissions';
import { jsonRpcUse, restUse, takeServedUse, type ServedRequestUse } from '../limits/served-request';
import { asBatonError } from '../errors/as-baton-error';
import { MAX_NESTING, nestsDeeperThan } from '../shared/nesting';
import { CallerUser, type ServedAgent } from './served-agent';

export interface ServedAgentsRouterOptions {
  /** Who may call, and what each caller may use (shared with the process's other surfaces). */
  gate: CallerGate;
  /** Largest request body, in bytes (`serve.maxRequestBytes`). */
  maxRequestBytes: number;
  logger: Logger;
}

type Binding = 'jsonrpc' | 'rest';

/** JSON-RPC's own codes for a request it cannot take (JSON-RPC 2.0 §5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * A refusal in the binding's own form: JSON-RPC's error envelope, or HTTP+JSON's status object.
 * `rpcCode`: the JSON-RPC code, when JSON-RPC has one for it; else -32000 (server error) with the
 * gRPC status named, as A2A's errors name theirs.
 */
function refuse(res: Response, binding: Binding, http: number, status: string, message: string, rpcCode = -32000): void {
  if (binding === 'jsonrpc') {
    const data = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: status, domain: 'baton' }];
    return void res.status(http).json({ jsonrpc: '2.0', id: null, error: { code: rpcCode, message, data } });
  }
  res.status(http).json({ error: { code: http, status, message } });
}

/** A JSON-RPC request object (JSON-RPC 2.0 §4): the SDK's handler answers anything else with -32602. */
const isRpcRequest = (body: unknown): boolean =>
  !!body &&
  typeof body === 'object' &&
  !Array.isArray(body) &&
  (body as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
  typeof (body as { method?: unknown }).method === 'string';

/**
 * HTTP+JSON's Delete answers its operation's result, the empty object, with 200: the SDK sends 204
 * and no body, which the official Python client tries to parse as JSON and fails on.
 */
function emptyObjectForNoContent(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'DELETE') return next();
  const status = res.status.bind(res);
  res.status = (code: number) => status(code === 204 ? 200 : code);
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    if (args.length === 0 && res.statusCode === 200 && !res.headersSent) {
      res.type('application/json');
      return end('{}');
    }
    return end(...args);
  }) as Response['end'];
  next();
}

const bindingOf = (req: Request): Binding => (/^\/jsonrpc(\/|$)/.test(req.path) ? 'jsonrpc' : 'rest');

export function servedAgentsRouter(agents: Map<string, ServedAgent>, opts: ServedAgentsRouterOptions): express.Router {
  const router = express.Router();
  const log = opts.logger.child({ component: 'served-agents' });
  const { gate } = opts;
  const callers = new WeakMap<Request, Principal>();
  const userBuilder = (req: Request) => {
    // The response's close (sent, or the connection gone) ends whatever still waits for this caller.
    const gone = new AbortController();
    req.res?.once('close', () => gone.abort());
    return Promise.resolve(new CallerUser((callers.get(req) as Principal).caller, gone.signal));
  };
  // A caller's traceparent is continued: its task's workflow joins the caller's trace.
  router.use(traceRequests('A2A server', undefined, recordServedRequest));

  /** Says why a request was refused (unknown token, budget), in the binding's form. */
  const refused = (req: Request, res: Response, err: unknown): void => {
    const binding = bindingOf(req);
    if (err instanceof RateLimitedError) {
      res.set('Retry-After', String(err.retryAfterSeconds));
      return refuse(res, binding, 429, 'RESOURCE_EXHAUSTED', err.message);
    }
    const known = asBatonError(err);
    if (known?.kind === 'Unauthorized') {
      res.set('WWW-Authenticate', 'Bearer');
      return refuse(res, binding, 401, 'UNAUTHENTICATED', 'send Authorization: Bearer <token> with a token Baton issued');
    }
    if (known?.kind === 'InvalidRequest') return refuse(res, binding, 400, 'INVALID_ARGUMENT', known.message);
    if (known?.kind === 'Forbidden') return refuse(res, binding, 403, 'PERMISSION_DENIED', known.message);
    log.error({ err }, 'served agent request could not be admitted');
    refuse(res, binding, 500, 'INTERNAL', 'internal error (see the server log)');
  };

  for (const [name, agent] of agents) {
    const one = express.Router();
    one.use(`/${AGENT_CARD_PATH}`, servedCardHandler(agent));
    // Before the body is read: the address, the token, the caller's request budget.
    one.use((req, res, next) => {
      void gate.admit(req.get('authorization'), req.ip).then(
        (caller) => {
          callers.set(req, caller);
          next();
        },
        (err: unknown) => refused(req, res, err),
      );
    });
    // 👉 Parsed here, with the configured limit: the SDK's handlers would use express's 100 kB default.
    one.use(express.json({ limit: opts.maxRequestBytes, type: ['application/json', 'application/a2a+json'] }));
    // What the request starts or holds, taken from the caller's budget before the SDK's handler runs.
    one.use((req, res, next) => {
      if (nestsDeeperThan(req.body))
        return refuse(res, bindingOf(req), 400, 'INVALID_ARGUMENT', `the request nests deeper than ${MAX_NESTING} levels`, INVALID_REQUEST);
      // A body of another content type is the SDK's to refuse (ContentTypeNotSupported, -32005).
      if (bindingOf(req) === 'jsonrpc' && req.is(['application/json', 'application/a2a+json']) && !isRpcRequest(req.body))
        return refuse(
          res,
          'jsonrpc',
          400,
          'INVALID_ARGUMENT',
          'the body is not a JSON-RPC 2.0 request object ({"jsonrpc": "2.0", "method": ..., "params": ..., "id": ...}); batches are not taken',
          INVALID_REQUEST,
        );
      const principal = callers.get(req) as Principal;
      const jsonRpc = bindingOf(req) === 'jsonrpc';
      const restPath = req.path.replace(/^\/rest/, '');
      try {
        requirePermission(principal, jsonRpc ? jsonRpcPermission(req.body) : restPermission(req.method, restPath, req.body));
      } catch (err) {
        return refused(req, res, err);
      }
      const use: ServedRequestUse = jsonRpc ? jsonRpcUse(req.body) : restUse(req.method, restPath, req.body);
      void takeServedUse(gate.budget, principal.caller, use, agent.workCost).then(
        (lease) => {
          if (lease) res.once('close', () => void lease.release());
          next();
        },
        (err: unknown) => refused(req, res, err),
      );
    });
    one.use('/jsonrpc', jsonRpcHandler({ requestHandler: agent, userBuilder }));
    one.use('/rest', emptyObjectForNoContent, restHandler({ requestHandler: agent, userBuilder }));
    router.use(`/${name}`, one);
  }
  router.use(
    (req, res) => void res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: `no served agent at ${req.path}` } }),
  );
  // Errors of the body parser (in the binding's form: JSON-RPC's own codes on /jsonrpc), and the rest.
  router.use((err: { type?: string; status?: number }, req: Request, res: Response, _next: NextFunction) => {
    const binding: Binding = /^\/[^/]+\/jsonrpc(\/|$)/.test(req.path) ? 'jsonrpc' : 'rest';
    if (err.type === 'entity.too.large')
      return refuse(
        res,
        binding,
        413,
        'INVALID_ARGUMENT',
        `the request is larger than ${opts.maxRequestBytes} bytes (serve.maxRequestBytes)`,
        INVALID_REQUEST,
      );
    if (err.type === 'entity.parse.failed')
      return refuse(res, binding, 400, 'INVALID_ARGUMENT', 'the request body is not JSON', PARSE_ERROR);
    log.error({ err }, 'served agent request failed');
    refuse(res, binding, 500, 'INTERNAL', 'internal error (see the server log)', -32603);
  });
  return router;
}
