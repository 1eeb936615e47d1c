/**
 * The MCP sessions one `baton ui` holds, each one MCP server acting as the caller that opened it.
 * A session's id is sealed (./session-id.ts), so a session this process does not hold (it restarted,
 * or another replica opened it) is taken up again from its id: a new MCP server for the same caller,
 * brought to where the host's initialize left it. What lived only in the old process is gone: its
 * resource subscriptions, and any request it was answering (the host sees that request fail).
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Caller } from '../shared/delegation-types';
import type { CallerBudget } from '../limits/caller-budget';
import type { Lease } from '../limits/budget-store';
import type { BatonMcp } from './baton-mcp-server';
import { openSessionId, sealSessionId, type SessionSeal } from './session-id';

export interface McpSessionsOptions {
  /** An MCP server acting as `caller`. */
  serverFor: (caller: Caller) => BatonMcp;
  logger: Logger;
  /** Each caller's sessions at most (`api.limits.mcpSessions`). */
  budget: CallerBudget;
  /** The key session ids are sealed with (`api.mcpSessionKeyFromEnv`): the same on every `baton ui` that shares hosts. */
  key: Buffer;
  /** Open sessions at most, of every caller. Default 1,000. */
  maxSessions?: number;
  /** A session unused this long is closed here; its id still takes it up again. Default 30 minutes. */
  idleMs?: number;
}

export interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  caller: Caller;
}

interface Held extends Session {
  mcp: BatonMcp;
  usedAt: number;
  lease: Lease;
}

/** Every session is in use: the host should try again later (503). */
export class SessionsFullError extends Error {}

/** Ids ended by their host (DELETE) that stay refused here, the latest this many. */
const MAX_ENDED = 10_000;

const sameCaller = (a: Caller, b: Caller): boolean => a.tenant === b.tenant && a.user === b.user;

export class McpSessions {
  private readonly held = new Map<string, Held>();
  private readonly ended = new Set<string>();
  private readonly takingUp = new Map<string, Promise<Held>>();
  private readonly maxSessions: number;
  private readonly idleMs: number;
  private readonly log: Logger;
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly o: McpSessionsOptions) {
    this.maxSessions = o.maxSessions ?? 1_000;
    this.idleMs = o.idleMs ?? 30 * 60_000;
    this.log = o.logger.child({ component: 'mcp' });
    this.sweep = setInterval(
      () => {
        for (const [id, s] of this.held) if (Date.now() - s.usedAt > this.idleMs) void this.end(id);
      },
      Math.min(this.idleMs, 60_000),
    );
    this.sweep.unref();
  }

  /**
   * The session `id` names for `caller`: held here, or taken up again from its seal. Undefined when
   * there is none for this caller (never opened, forged, ended by its host, or another caller's: all
   * look alike). Throws RateLimitedError or SessionsFullError when it cannot be taken up now.
   */
  async find(id: string, caller: Caller): Promise<Session | undefined> {
    const s = this.held.get(id) ?? (await this.takeUp(id, caller));
    if (!s || !sameCaller(s.caller, caller)) return undefined;
    s.usedAt = Date.now();
    return s;
  }

  /**
   * A new session for `caller`, opened by `init`: `answer` passes the initialize on to the transport.
   * An initialize the transport refuses opens nothing and gives the caller's session back.
   */
  async open(
    caller: Caller,
    init: InitializeRequest,
    answer: (t: WebStandardStreamableHTTPServerTransport) => Promise<void>,
  ): Promise<void> {
    const lease = await this.lease(caller);
    const seal: SessionSeal = {
      caller,
      protocolVersion: init.params.protocolVersion,
      client: { name: init.params.clientInfo.name, version: init.params.clientInfo.version },
      nonce: randomUUID(),
    };
    const { transport, mcp } = await this.connect(caller, sealSessionId(this.o.key, seal), lease);
    try {
      await answer(transport);
    } finally {
      if (!this.holds(transport, mcp)) await this.abandon(lease, mcp);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.held.keys()].map((id) => this.end(id)));
  }

  /** Takes up a session this process does not hold, from its sealed id; once, however many requests ask. */
  private takeUp(id: string, caller: Caller): Promise<Held | undefined> {
    if (this.ended.has(id)) return Promise.resolve(undefined);
    const seal = openSessionId(this.o.key, id);
    if (!seal || !sameCaller(seal.caller, caller)) return Promise.resolve(undefined);
    const pending = this.takingUp.get(id);
    if (pending) return pending;
    const taking = this.restore(id, seal).finally(() => this.takingUp.delete(id));
    this.takingUp.set(id, taking);
    return taking;
  }

  private async restore(id: string, seal: SessionSeal): Promise<Held> {
    const lease = await this.lease(seal.caller);
    const { transport, mcp } = await this.connect(seal.caller, id, lease);
    try {
      return await this.replayHandshake(id, seal, transport);
    } catch (err) {
      if (!this.holds(transport, mcp)) await this.abandon(lease, mcp);
      throw err;
    }
  }

  private async replayHandshake(id: string, seal: SessionSeal, transport: WebStandardStreamableHTTPServerTransport): Promise<Held> {
    // The host's handshake again, as it gave it: the transport and the MCP server are then where they were.
    const post = (headers: Record<string, string>, body: unknown): Promise<Response> =>
      transport.handleRequest(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        }),
        { parsedBody: body },
      );
    const params = { protocolVersion: seal.protocolVersion, capabilities: {}, clientInfo: seal.client };
    await (await post({}, { jsonrpc: '2.0', id: `baton-take-up-${seal.nonce}`, method: 'initialize', params })).text();
    await (await post({ 'mcp-session-id': id }, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    const held = this.held.get(id);
    if (!held) throw new Error('the MCP session could not be taken up again');
    this.log.info({ caller: seal.caller, sessions: this.held.size }, 'MCP session taken up again from its id');
    return held;
  }

  /** A place for one more session of `caller`: within every caller's total here, and within its own budget. */
  private async lease(caller: Caller): Promise<Lease> {
    if (this.held.size >= this.maxSessions) throw new SessionsFullError(`${this.maxSessions} MCP sessions are open: try again later`);
    return this.o.budget.openSession(caller);
  }

  /** A transport and MCP server for `caller` whose session, once initialized, is `id`; holds `lease` until it ends. */
  private async connect(
    caller: Caller,
    id: string,
    lease: Lease,
  ): Promise<{ transport: WebStandardStreamableHTTPServerTransport; mcp: BatonMcp }> {
    const mcp = this.o.serverFor(caller);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (sid) => {
        this.held.set(sid, { id: sid, transport, mcp, caller, usedAt: Date.now(), lease });
        this.log.info({ caller, sessions: this.held.size }, 'MCP session opened');
      },
    });
    // Closed by its host (DELETE): the id stays refused here. Closed by this process (idle, shutdown): end() ran first.
    transport.onclose = () => {
      if (this.holds(transport, mcp)) void this.end(transport.sessionId ?? '', 'by its host');
    };
    try {
      await mcp.server.connect(transport);
    } catch (err) {
      await this.abandon(lease, mcp);
      throw err;
    }
    return { transport, mcp };
  }

  private holds(transport: WebStandardStreamableHTTPServerTransport, mcp: BatonMcp): boolean {
    return transport.sessionId !== undefined && this.held.get(transport.sessionId)?.mcp === mcp;
  }

  private async abandon(lease: Lease, mcp: BatonMcp): Promise<void> {
    await lease.release().catch(() => undefined);
    await mcp.close().catch(() => undefined);
  }

  private async end(id: string, by?: 'by its host'): Promise<void> {
    const s = this.held.get(id);
    if (!s) return;
    this.held.delete(id);
    if (by) {
      this.ended.add(id);
      if (this.ended.size > MAX_ENDED) this.ended.delete(this.ended.values().next().value as string);
    }
    await this.abandon(s.lease, s.mcp);
  }
}
