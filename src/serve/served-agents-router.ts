/**
 * The served agents over HTTP, each at `<base>/a2a/<name>`: its card at `/.well-known/agent-card.json`
 * (public), JSON-RPC at `/jsonrpc` and HTTP+JSON at `/rest` (the official SDK's transports over
 * Baton's request handler). Every call but the card needs a bearer token of `api.callers`; the token
 * names the caller, whose tenant scopes every read.
 */
import { traceRequests } from '../telemetry/http-server-span';
import { recordServedRequest } from '../telemetry/metrics';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { CallerTokens } from '../http/caller-tokens';
import { RateLimiter, retryAfterSeconds } from '../http/rate-limit';
import type { Caller } from '../shared/delegation-types';
import { CallerUser, type ServedAgent } from './served-agent';

export interface ServedAgentsRouterOptions {
  tokens: CallerTokens;
  /** Requests one caller may make, as for the HTTP API (`api.rateLimit`). */
  rateLimit: { requestsPerMinute: number; burst: number };
  /** Largest request body, in bytes (`serve.maxRequestBytes`). */
  maxRequestBytes: number;
  logger: Logger;
}

export function servedAgentsRouter(agents: Map<string, ServedAgent>, opts: ServedAgentsRouterOptions): express.Router {
  const router = express.Router();
  const log = opts.logger.child({ component: 'served-agents' });
  const limiter = new RateLimiter({ perMinute: opts.rateLimit.requestsPerMinute, burst: opts.rateLimit.burst });
  const callers = new WeakMap<Request, Caller>();
  const userBuilder = (req: Request) => Promise.resolve(new CallerUser(callers.get(req) as Caller));
  // A caller's traceparent is continued: its task's workflow joins the caller's trace.
  router.use(traceRequests('A2A server', undefined, recordServedRequest));

  for (const [name, agent] of agents) {
    const one = express.Router();
    one.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: agent }));
    one.use((req, res, next) => {
      const caller = opts.tokens.callerFor(req.get('authorization'));
      if (!caller)
        return void res
          .status(401)
          .set('WWW-Authenticate', 'Bearer')
          .json({
            error: { code: 401, status: 'UNAUTHENTICATED', message: 'send Authorization: Bearer <token> with a token Baton issued' },
          });
      const taken = limiter.take(`${caller.tenant}/${caller.user}`);
      if (!taken.ok) {
        const seconds = retryAfterSeconds(taken.retryAfterMs);
        return void res
          .status(429)
          .set('Retry-After', String(seconds))
          .json({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: `too many requests; try again in ${seconds} s` } });
      }
      callers.set(req, caller);
      next();
    });
    // 👉 Parsed here, with the configured limit: the SDK's handlers would use express's 100 kB default.
    one.use(express.json({ limit: opts.maxRequestBytes, type: ['application/json', 'application/a2a+json'] }));
    one.use('/jsonrpc', jsonRpcHandler({ requestHandler: agent, userBuilder }));
    one.use('/rest', restHandler({ requestHandler: agent, userBuilder }));
    router.use(`/${name}`, one);
  }
  router.use(
    (req, res) => void res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: `no served agent at ${req.path}` } }),
  );
  router.use((err: { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.too.large')
      return void res.status(413).json({
        error: {
          code: 413,
          status: 'INVALID_ARGUMENT',
          message: `the request is larger than ${opts.maxRequestBytes} bytes (serve.maxRequestBytes)`,
        },
      });
    if (err.type === 'entity.parse.failed')
      return void res.status(400).json({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'the request body is not JSON' } });
    log.error({ err }, 'served agent request failed');
    res.status(500).json({ error: { code: 500, status: 'INTERNAL', message: 'internal error (see the server log)' } });
  });
  return router;
}
