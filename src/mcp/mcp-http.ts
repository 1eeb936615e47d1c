/**
 * MCP over Streamable HTTP, mounted by `baton ui` at `/mcp`: the same bearer tokens as the HTTP API
 * (the caller is authenticated before this router runs). Each session is one MCP server acting as the
 * caller that opened it; a session id presented with another caller's token is not found.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Caller } from '../shared/delegation-types';
import { mcpPermission, refusePermission, type Permission } from '../auth/permissions';
import { MAX_NESTING, nestsDeeperThan } from '../shared/nesting';
import type { BatonMcp } from './baton-mcp-server';
import { RateLimitedError, type CallerBudget } from '../limits/caller-budget';
import type { Lease } from '../limits/budget-store';

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
  /** A session unused this long is closed. Default 30 minutes. */
  idleMs?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  mcp: BatonMcp;
  caller: Caller;
  usedAt: number;
  lease: Lease;
}

const rpcError = (res: Response, status: number, message: string): void =>
  void res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

/** The `/mcp` router and the way to close its sessions. */
export interface McpHttp {
  router: express.Router;
  close(): Promise<void>;
}

export function mcpRouter(opts: McpHttpOptions): McpHttp {
  const sessions = new Map<string, Session>();
  const maxSessions = opts.maxSessions ?? 1_000;
  const idleMs = opts.idleMs ?? 30 * 60_000;
  const log = opts.logger.child({ component: 'mcp' });
  const end = async (id: string): Promise<void> => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.lease.release().catch(() => undefined);
    await s.mcp.close().catch(() => undefined);
  };
  const sweep = setInterval(
    () => {
      for (const [id, s] of sessions) if (Date.now() - s.usedAt > idleMs) void end(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  const router = express.Router();
  router.use(express.json({ limit: '1mb' }));
  router.all('/', (req, res) => {
    if (nestsDeeperThan(req.body)) return rpcError(res, 400, `the request nests deeper than ${MAX_NESTING} levels`);
    const caller = opts.callerOf(req);
    // A tool that acts needs its permission, like the same act over the API.
    const forbidden = opts.mayOf && refusePermission(opts.mayOf(req), mcpPermission(req.body));
    if (forbidden) return rpcError(res, 403, `Forbidden: ${forbidden}`);
    const sessionId = req.get('mcp-session-id');
    const handle = (s: Session): Promise<void> => {
      s.usedAt = Date.now();
      return s.transport.handleRequest(req, res, req.body);
    };
    if (sessionId) {
      const s = sessions.get(sessionId);
      // Another caller's session looks exactly like an ended one.
      if (!s || s.caller.tenant !== caller.tenant || s.caller.user !== caller.user)
        return rpcError(res, 404, 'no such MCP session (ended, or opened by another caller): initialize a new one');
      return void handle(s).catch((err: unknown) => log.error({ err }, 'MCP request failed'));
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body))
      return rpcError(res, 400, 'no MCP session: send initialize first, then the Mcp-Session-Id it answers with');
    if (sessions.size >= maxSessions) return rpcError(res, 503, `${maxSessions} MCP sessions are open: try again later`);
    void opts.budget.openSession(caller).then(
      (lease) => open(req, res, caller, lease),
      (err: unknown) => {
        if (!(err instanceof RateLimitedError)) {
          log.error({ err }, 'MCP session could not be counted');
          return rpcError(res, 500, 'internal error (see the server log)');
        }
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
        rpcError(res, 429, err.message);
      },
    );
  });

  /** A new session for `caller`, holding `lease` until it ends. */
  const open = (req: Request, res: Response, caller: Caller, lease: Lease): void => {
    const mcp = opts.serverFor(caller);
    let opened = false;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        opened = true;
        sessions.set(id, { transport, mcp, caller, usedAt: Date.now(), lease });
        log.info({ caller, sessions: sessions.size }, 'MCP session opened');
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) void end(transport.sessionId);
    };
    void mcp.server
      .connect(transport)
      .then(() => transport.handleRequest(req, res, req.body))
      .catch((err: unknown) => {
        log.error({ err }, 'MCP session could not start');
        if (!res.headersSent) rpcError(res, 500, 'internal error (see the server log)');
      })
      .finally(() => {
        // An initialize that did not open a session gives its place back.
        if (!opened) void lease.release();
      });
  };

  return {
    router,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(end));
    },
  };
}
