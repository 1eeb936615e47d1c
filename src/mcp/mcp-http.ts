/**
 * MCP over Streamable HTTP, mounted by `baton ui` at `/mcp`: the same bearer tokens as the HTTP API
 * (the caller is authenticated before this router runs). Each session is one MCP server acting as the
 * caller that opened it (./mcp-sessions.ts); a session id presented with another caller's token is
 * not found. A session id outlives the process that made it: another `baton ui` with the same key
 * takes the session up again.
 */
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Caller } from '../shared/delegation-types';
import { mcpPermission, refusePermission, type Permission } from '../auth/permissions';
import { MAX_NESTING, nestsDeeperThan } from '../shared/nesting';
import type { BatonMcp } from './baton-mcp-server';
import { RateLimitedError, type CallerBudget } from '../limits/caller-budget';
import { McpSessions, SessionsFullError, type Session } from './mcp-sessions';
import { sendWebResponse, webRequestOf } from './web-http';

export interface McpHttpOptions {
  /** An MCP server acting as `caller`. */
  serverFor: (caller: Caller) => BatonMcp;
  /** The caller the request was authenticated as. */
  callerOf: (req: Request) => Caller;
  /** What that caller may do. Default: everything (embedding with static tokens). */
  mayOf?: (req: Request) => ReadonlySet<Permission>;
  logger: Logger;
  /** Each caller's sessions at most (`api.limits.mcpSessions`): an initialize beyond them is refused (429). */
  budget: CallerBudget;
  /** Open sessions at most, of every caller; an initialize beyond them is refused (503). Default 1,000. */
  maxSessions?: number;
  /** A session unused this long is closed here (its id still takes it up again). Default 30 minutes. */
  idleMs?: number;
  /** The key session ids are sealed with (`api.mcpSessionKeyFromEnv`): the same on every `baton ui` that shares hosts. */
  sessionKey: Buffer;
}

const rpcError = (res: Response, status: number, message: string): void =>
  void res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

/** The `/mcp` router and the way to close its sessions. */
export interface McpHttp {
  router: express.Router;
  close(): Promise<void>;
}

export function mcpRouter(opts: McpHttpOptions): McpHttp {
  const sessions = new McpSessions({
    serverFor: opts.serverFor,
    logger: opts.logger,
    budget: opts.budget,
    key: opts.sessionKey,
    ...(opts.maxSessions ? { maxSessions: opts.maxSessions } : {}),
    ...(opts.idleMs ? { idleMs: opts.idleMs } : {}),
  });
  const log = opts.logger.child({ component: 'mcp' });
  /** The request passed on to a session's transport, its answer written back. */
  const serve = async (s: Pick<Session, 'transport'>, req: Request, res: Response): Promise<void> =>
    sendWebResponse(await s.transport.handleRequest(webRequestOf(req), req.method === 'POST' ? { parsedBody: req.body } : {}), res);
  /** A refusal the host can act on; anything else is logged and answered 500. */
  const failed = (res: Response, what: string) => (err: unknown) => {
    if (res.headersSent) return void res.end();
    if (err instanceof SessionsFullError) return rpcError(res, 503, err.message);
    if (err instanceof RateLimitedError) {
      res.setHeader('Retry-After', String(err.retryAfterSeconds));
      return rpcError(res, 429, err.message);
    }
    log.error({ err }, what);
    rpcError(res, 500, 'internal error (see the server log)');
  };

  const router = express.Router();
  router.use(express.json({ limit: '1mb' }));
  router.all('/', (req, res) => {
    if (nestsDeeperThan(req.body)) return rpcError(res, 400, `the request nests deeper than ${MAX_NESTING} levels`);
    const caller = opts.callerOf(req);
    // A tool that acts needs its permission, like the same act over the API.
    const forbidden = opts.mayOf && refusePermission(opts.mayOf(req), mcpPermission(req.body));
    if (forbidden) return rpcError(res, 403, `Forbidden: ${forbidden}`);
    const sessionId = req.get('mcp-session-id');
    if (sessionId)
      return void sessions
        .find(sessionId, caller)
        .then((s) =>
          // Another caller's session looks exactly like an ended one.
          s ? serve(s, req, res) : rpcError(res, 404, 'no such MCP session (ended, or opened by another caller): initialize a new one'),
        )
        .catch(failed(res, 'MCP request failed'));
    if (req.method !== 'POST' || !isInitializeRequest(req.body))
      return rpcError(res, 400, 'no MCP session: send initialize first, then the Mcp-Session-Id it answers with');
    void sessions.open(caller, req.body, (transport) => serve({ transport }, req, res)).catch(failed(res, 'MCP session could not start'));
  });

  return { router, close: () => sessions.close() };
}
