/**
 * `/mcp`: Baton as an MCP server over Streamable HTTP, for the API's callers. Loaded at the first MCP
 * request: the MCP SDK takes about 0.3 s to load, which no other command should pay.
 */
import { randomBytes } from 'node:crypto';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { BatonClient } from '../../client/baton-client';
import type { GraphClient } from '../../client/graph-client';
import type { AgentEntry } from '../../config/schema';
import { RateLimitedError } from '../../limits/caller-budget';
import type * as McpServerModule from '../../mcp/baton-mcp-server';
import type * as McpHttpModule from '../../mcp/mcp-http';
import type { McpHttp } from '../../mcp/mcp-http';
import { apiErrorOf, type RouteKit } from './route-kit';

/** Mounts `/mcp` behind `authenticate`; returns what closes its sessions. */
export function mountMcp(
  app: express.Express,
  authenticate: express.RequestHandler,
  kit: RouteKit,
  clients: { baton: BatonClient; graphs: GraphClient; logger: Logger },
  mcp: { agents: Record<string, AgentEntry>; sessionKey?: Buffer },
): () => Promise<void> {
  const { agents } = mcp;
  const sessionKey = mcp.sessionKey ?? randomBytes(32);
  // Loaded at the first MCP request: the MCP SDK takes about 0.3 s to load, which no other command should pay.
  let loaded: McpHttp | undefined;
  const load = (): McpHttp => {
    if (loaded) return loaded;
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { mcpRouter } = require('../../mcp/mcp-http') as typeof McpHttpModule;
    const { createBatonMcpServer } = require('../../mcp/baton-mcp-server') as typeof McpServerModule;
    /* eslint-enable @typescript-eslint/no-require-imports */
    return (loaded = mcpRouter({
      callerOf: (req) => kit.as(req).caller,
      mayOf: (req) => kit.as(req).principal.may,
      budget: kit.budget,
      serverFor: (caller) =>
        createBatonMcpServer({
          baton: clients.baton.as(caller),
          graphs: clients.graphs.as(caller),
          agents,
          artifacts: kit.artifacts,
          logger: kit.log,
          limits: {
            startWork: (count, what) => kit.budget.startWork(caller, count, what),
            openStream: () => kit.budget.openStream(caller),
          },
        }),
      logger: clients.logger,
      sessionKey,
    }));
  };
  const close = async (): Promise<void> => loaded?.close();
  const route = (req: Request, res: Response, next: NextFunction): void => void load().router(req, res, next);
  app.use('/mcp', authenticate, route, (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = apiErrorOf(err);
    if (e.kind === 'Unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
    if (res.headersSent) return void res.end();
    if (e instanceof RateLimitedError) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    res.status(e.httpStatus).json({ jsonrpc: '2.0', error: { code: -32000, message: `${e.kind}: ${e.message}` }, id: null });
  });
  return close;
}
