/**
 * The worker's connections to configured MCP servers: one per server, shared by concurrent calls
 * and kept for `keepAliveMs` after the last one (then closed, a stdio server ending with it), or one
 * per call when `keepAliveMs` is 0. A connection that failed is dropped, so the retry connects afresh.
 */
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as StreamableHttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { authValueOf } from '../src/a2a/agent-credentials';
import { createGuardedFetch } from '../src/a2a/guarded-fetch';
import type { McpServerEntry } from '../src/config/schema';
import { BATON_VERSION } from '../src/shared/baton-version';

/** An open connection: the client, the tools the server listed, the end of a stdio server's stderr. */
export interface McpConnection {
  client: Client;
  tools: Tool[];
  stderrTail(): string;
}

interface Kept {
  connection: Promise<McpConnection>;
  users: number;
  idle?: NodeJS.Timeout;
}

/** A connection that could not be made; `stderr` is the end of what a stdio server wrote. */
export class McpConnectError extends Error {
  constructor(
    readonly cause: unknown,
    readonly stderr: string,
  ) {
    super((cause as Error)?.message ?? String(cause));
    this.name = 'McpConnectError';
  }
}

/** A module of the MCP SDK, loaded at the first connection: about 0.3 s that a worker calling no MCP tool never pays. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sdk = <M>(module: string): M => require(module) as M;

function transportOf(name: string, entry: McpServerEntry): { transport: Transport; stderrTail: () => string } {
  if (entry.command) {
    const { getDefaultEnvironment, StdioClientTransport } = sdk<typeof StdioModule>('@modelcontextprotocol/sdk/client/stdio.js');
    const env: Record<string, string> = { ...getDefaultEnvironment() };
    for (const variable of entry.env) {
      const value = process.env[variable];
      if (value !== undefined) env[variable] = value;
    }
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: entry.cwd, env, stderr: 'pipe' });
    let tail = '';
    transport.stderr?.on('data', (c: Buffer) => (tail = (tail + c.toString('utf8')).slice(-500)));
    return { transport, stderrTail: () => tail.trim() };
  }
  const owner = `mcp.servers.${name}`;
  const fetchImpl = createGuardedFetch({
    allowHttp: entry.allowHttp,
    allowPrivateNetwork: entry.allowPrivateNetwork,
    maxResponseBytes: entry.maxResultBytes * 2,
    connectTimeoutMs: Math.min(5_000, entry.timeoutMs),
    readTimeoutMs: entry.timeoutMs,
    maxRedirects: 0,
    owner,
  });
  const headers: Record<string, string> = entry.auth ? { [entry.auth.header]: authValueOf(entry.auth, `${owner}.auth`) } : {};
  const { StreamableHTTPClientTransport } = sdk<typeof StreamableHttpModule>('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const transport = new StreamableHTTPClientTransport(new URL(entry.url as string), { fetch: fetchImpl, requestInit: { headers } });
  return { transport, stderrTail: () => '' };
}

async function connect(name: string, entry: McpServerEntry): Promise<McpConnection> {
  const { transport, stderrTail } = transportOf(name, entry);
  const { Client } = sdk<typeof ClientModule>('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'baton-worker', version: BATON_VERSION });
  const options = { timeout: entry.timeoutMs, maxTotalTimeout: entry.timeoutMs };
  try {
    await client.connect(transport, options);
    // Listed once per connection: the client learns each tool's output schema, to check results against.
    const { tools } = await client.listTools(undefined, options);
    return { client, tools, stderrTail };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(err, stderrTail());
  }
}

/** Every worker's connections in this process, so a stopping worker can close them. */
const everyPool = new Set<McpConnections>();

/**
 * Closes the MCP connections Baton's activities keep in this process (a kept stdio server is a child
 * process, which would hold the process open until its keep-alive passed). Baton's worker and plugin
 * call it when a worker stops; an application using `withBaton` alone calls it after its worker ran.
 */
export function closeMcpConnections(): void {
  for (const pool of everyPool) pool.closeAll();
}

export class McpConnections {
  private readonly kept = new Map<string, Kept>();

  constructor() {
    everyPool.add(this);
  }

  /**
   * Runs `fn` on a connection to server `name`. A failure of `fn` for which `dropOn` holds drops the
   * connection (the server may be the cause); default: every failure.
   */
  async use<T>(
    name: string,
    entry: McpServerEntry,
    fn: (connection: McpConnection) => Promise<T>,
    dropOn: (err: unknown) => boolean = () => true,
  ): Promise<T> {
    if (entry.keepAliveMs === 0) {
      const connection = await connect(name, entry);
      try {
        return await fn(connection);
      } finally {
        await connection.client.close().catch(() => undefined);
      }
    }
    let kept = this.kept.get(name);
    if (!kept) {
      kept = { connection: connect(name, entry), users: 0 };
      this.kept.set(name, kept);
      const made = kept;
      // A connection that could not be made is not kept: the next call (the retry) tries again.
      made.connection.catch(() => this.kept.get(name) === made && this.kept.delete(name));
    }
    kept.users++;
    clearTimeout(kept.idle);
    try {
      return await fn(await kept.connection);
    } catch (err) {
      if (dropOn(err)) this.drop(name, kept);
      throw err;
    } finally {
      kept.users--;
      if (kept.users === 0 && this.kept.get(name) === kept) {
        const idle = kept;
        kept.idle = setTimeout(() => this.drop(name, idle), entry.keepAliveMs);
        kept.idle.unref();
      }
    }
  }

  private drop(name: string, kept: Kept): void {
    if (this.kept.get(name) === kept) this.kept.delete(name);
    clearTimeout(kept.idle);
    void kept.connection.then(
      (c) => c.client.close(),
      () => undefined,
    );
  }

  /** Closes every kept connection (the worker is stopping). */
  closeAll(): void {
    for (const [name, kept] of this.kept) this.drop(name, kept);
  }
}

/** A worker plugin that closes the MCP connections once the worker stopped running. */
export const MCP_CONNECTIONS_PLUGIN = {
  name: 'baton-mcp-connections',
  async runWorker<W>(worker: W, next: (w: W) => Promise<void>): Promise<void> {
    try {
      await next(worker);
    } finally {
      closeMcpConnections();
    }
  },
};
