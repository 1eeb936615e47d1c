/**
 * The A2A agents Baton serves (`serve.services`), each at `<base>/a2a/<name>`: its card at
 * `/.well-known/agent-card.json` (public), JSON-RPC at `/jsonrpc` and HTTP+JSON at `/rest` (the
 * official SDK's transports over Baton's request handler). Every call but the card needs a bearer
 * token of `api.callers`; the token names the caller, whose tenant scopes every read.
 */
import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { ArtifactStore } from '../artifacts/store';
import type { BatonClient } from '../client/baton-client';
import { ConfigError } from '../config/load';
import type { BatonConfig, ServeConfig, ServedAgentConfig } from '../config/schema';
import type { CallerTokens } from '../http/caller-tokens';
import { RateLimiter, retryAfterSeconds } from '../http/rate-limit';
import type { Caller } from '../shared/delegation-types';
import { CallerUser, ServedAgent } from './served-agent';
import { DelegationRunner, GraphRunner, servedGraphSpec } from './task-runners';
import type { GraphClient } from '../client/graph-client';
import { GraphSpecError, parseGraphSpec } from '../shared/graph-spec';

export interface ServedAgentsOptions {
  serve: ServeConfig;
  /** The agents the services delegate to must be configured here. */
  agents: BatonConfig['agents'];
  baton: BatonClient;
  graphs: GraphClient;
  tokens: CallerTokens;
  /** The URL the server is reached at (`serve.publicUrl`, else the listen address), once it is known. */
  baseUrl: () => string;
  /** Requests one caller may make, as for the HTTP API (`api.rateLimit`). */
  rateLimit: { requestsPerMinute: number; burst: number };
  artifacts?: ArtifactStore;
  logger: Logger;
}

/** Throws ConfigError when a service names an agent that is not configured, or a graph that cannot run. */
export function checkServices(serve: ServeConfig, agents: BatonConfig['agents']): void {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(serve.services)) {
    if (s.delegate && !agents[s.delegate.agent])
      problems.push(`serve.services.${name}.delegate.agent: ${s.delegate.agent} is not under agents`);
    if (s.graph) {
      try {
        parseGraphSpec(servedGraphSpec(s.graph, [{ text: 'request' }]), Object.keys(agents));
      } catch (err) {
        if (!(err instanceof GraphSpecError)) throw err;
        problems.push(...err.problems.map((p) => `serve.services.${name}.graph: ${p}`));
      }
    }
  }
  if (problems.length) throw new ConfigError('the served agents are not valid:', problems);
}

/** The card of service `name`, served at `base`. */
export function servedCard(name: string, service: ServedAgentConfig, base: string): AgentCard {
  const url = `${base.replace(/\/$/, '')}/a2a/${name}`;
  return AgentCard.fromJSON({
    name,
    description: service.description,
    version: service.version,
    provider: { organization: 'Baton', url: base },
    supportedInterfaces: [
      { url: `${url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'a token Baton issued to the caller (api.callers)' } },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: service.inputModes,
    defaultOutputModes: service.outputModes,
    skills: service.skills,
  });
}

export function servedAgentsRouter(opts: ServedAgentsOptions): express.Router {
  checkServices(opts.serve, opts.agents);
  const router = express.Router();
  const log = opts.logger.child({ component: 'served-agents' });
  const limiter = new RateLimiter({ perMinute: opts.rateLimit.requestsPerMinute, burst: opts.rateLimit.burst });
  const callers = new WeakMap<Request, Caller>();
  const userBuilder = (req: Request) => Promise.resolve(new CallerUser(callers.get(req) as Caller));

  for (const [name, service] of Object.entries(opts.serve.services)) {
    let card: AgentCard | undefined;
    const agent = new ServedAgent({
      name,
      config: service,
      card: () => (card ??= servedCard(name, service, opts.baseUrl())),
      baton: opts.baton,
      runner: service.graph
        ? new GraphRunner(opts.baton, opts.graphs, service.graph)
        : new DelegationRunner(opts.baton, service.delegate as NonNullable<typeof service.delegate>),
      ...(opts.artifacts ? { artifacts: opts.artifacts } : {}),
      pollMs: opts.serve.pollMs,
      logger: log,
    });
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
    one.use(express.json({ limit: opts.serve.maxRequestBytes, type: ['application/json', 'application/a2a+json'] }));
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
          message: `the request is larger than ${opts.serve.maxRequestBytes} bytes (serve.maxRequestBytes)`,
        },
      });
    if (err.type === 'entity.parse.failed')
      return void res.status(400).json({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'the request body is not JSON' } });
    log.error({ err }, 'served agent request failed');
    res.status(500).json({ error: { code: 500, status: 'INTERNAL', message: 'internal error (see the server log)' } });
  });
  return router;
}
