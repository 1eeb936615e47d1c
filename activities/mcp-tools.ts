/**
 * Calling a tool of a configured MCP server for a workflow: the server must be in `mcp.servers` and
 * the tool on its allowlist; the connection lasts the call (a stdio server is started and ended with
 * it; a Streamable HTTP one is reached through the same guarded fetch as agents, its credential read
 * here by name); the result is size-capped, its structured part checked against the tool's output
 * schema, and returned as untrusted data. Failures that retrying cannot mend are non-retryable.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { readSecret } from '../src/a2a/agent-fetch';
import { createGuardedFetch, FetchRefusedError } from '../src/a2a/guarded-fetch';
import { findCause } from '../src/a2a/cause';
import type { McpServerEntry } from '../src/config/schema';
import { BATON_VERSION } from '../src/shared/baton-version';
import { MAX_MCP_ARGUMENT_BYTES, type McpToolCall, type McpToolResult } from '../src/shared/mcp-tool-types';
import type { ActivityContext } from './context';

const refuse = (type: string, message: string): ApplicationFailure => ApplicationFailure.create({ type, message, nonRetryable: true });

/** The transport to `entry`, and the end of a stdio server's stderr (for a failure's message). */
function transportOf(name: string, entry: McpServerEntry): { transport: Transport; stderrTail: () => string } {
  if (entry.command) {
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
  const headers: Record<string, string> = {};
  if (entry.auth) {
    const value = readSecret(entry.auth, `${owner}.auth`);
    headers[entry.auth.header] = entry.auth.scheme ? `${entry.auth.scheme} ${value}` : value;
  }
  return {
    transport: new StreamableHTTPClientTransport(new URL(entry.url as string), { fetch: fetchImpl, requestInit: { headers } }),
    stderrTail: () => '',
  };
}

export async function callMcpTool(ctx: ActivityContext, input: McpToolCall): Promise<McpToolResult> {
  const entry = ctx.deps.config.mcp?.servers[input.server];
  if (!entry) throw refuse('McpServerUnknown', `no MCP server ${input.server} is configured on this worker (mcp.servers)`);
  if (!entry.tools.includes(input.tool))
    throw refuse(
      'McpToolNotAllowed',
      `tool ${input.tool} of MCP server ${input.server} is not in its allowlist (mcp.servers.${input.server}.tools)`,
    );
  const argumentBytes = Buffer.byteLength(JSON.stringify(input.arguments ?? {}));
  if (argumentBytes > MAX_MCP_ARGUMENT_BYTES)
    throw refuse('McpRefused', `the arguments are ${argumentBytes} bytes, over the ${MAX_MCP_ARGUMENT_BYTES} a tool call may send`);

  const log = ctx.logger.child({ mcpServer: input.server, mcpTool: input.tool });
  const { transport, stderrTail } = transportOf(input.server, entry);
  const client = new Client({ name: 'baton-worker', version: BATON_VERSION });
  const options = { timeout: entry.timeoutMs, maxTotalTimeout: entry.timeoutMs };
  const started = performance.now();
  try {
    try {
      await client.connect(transport, options);
    } catch (err) {
      const refused = findCause(err, FetchRefusedError);
      if (refused) throw refuse('McpRefused', `MCP server ${input.server}: ${refused.message}`);
      const tail = stderrTail();
      throw new Error(`MCP server ${input.server} could not be reached: ${(err as Error).message}${tail ? ` (its stderr: ${tail})` : ''}`);
    }
    // Listing first: the tool must be offered, and the client learns its output schema to check the result against.
    const listed = await client.listTools(undefined, options);
    if (!listed.tools.some((t) => t.name === input.tool))
      throw refuse('McpToolMissing', `MCP server ${input.server} offers no tool ${input.tool} (it offers ${listed.tools.length} others)`);
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name: input.tool, arguments: input.arguments ?? {} }, undefined, options);
    } catch (err) {
      if (/structured content/i.test((err as Error).message))
        throw refuse('McpOutputInvalid', `MCP server ${input.server}, tool ${input.tool}: ${(err as Error).message}`);
      throw err;
    }
    const contents = Array.isArray(result.content) ? (result.content as { type: string; text?: unknown }[]) : [];
    const out: McpToolResult = {
      server: input.server,
      tool: input.tool,
      isError: result.isError === true,
      text: contents
        .filter((c) => c.type === 'text' && typeof c.text === 'string')
        .map((c) => c.text as string)
        .join('\n'),
      ...(result.structuredContent && typeof result.structuredContent === 'object'
        ? { structuredContent: result.structuredContent as Record<string, unknown> }
        : {}),
    };
    const omitted = contents.filter((c) => c.type !== 'text').map((c) => String(c.type));
    if (omitted.length) out.omitted = omitted;
    const bytes = Buffer.byteLength(JSON.stringify(out));
    if (bytes > entry.maxResultBytes)
      throw refuse(
        'McpResultTooLarge',
        `MCP server ${input.server}, tool ${input.tool} returned ${bytes} bytes, over mcp.servers.${input.server}.maxResultBytes (${entry.maxResultBytes})`,
      );
    log.info({ isError: out.isError, bytes, ms: Math.round(performance.now() - started) }, 'MCP tool called');
    return out;
  } finally {
    await client.close().catch(() => undefined);
  }
}

export function mcpToolActivities(ctx: ActivityContext) {
  return { callMcpTool: (input: McpToolCall) => callMcpTool(ctx, input) };
}
