/**
 * Calling a tool of a configured MCP server for a workflow: the server must be in `mcp.servers` and
 * the tool on its allowlist; the connection is the worker's (./mcp-connections.ts: a stdio server
 * started with the environment its entry names, a Streamable HTTP one reached through the same
 * guarded fetch as agents, its credential read here by name); the result is size-capped, its
 * structured part checked against the tool's output schema, and returned as untrusted data. Failures
 * that retrying cannot mend are non-retryable.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { findCause } from '../src/a2a/cause';
import { FetchRefusedError } from '../src/a2a/guarded-fetch';
import { MAX_MCP_ARGUMENT_BYTES, type McpToolCall, type McpToolResult } from '../src/shared/mcp-tool-types';
import type { ActivityContext } from './context';
import { McpConnectError, McpConnections } from './mcp-connections';

const refuse = (type: string, message: string): ApplicationFailure => ApplicationFailure.create({ type, message, nonRetryable: true });

export async function callMcpTool(ctx: ActivityContext, connections: McpConnections, input: McpToolCall): Promise<McpToolResult> {
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
  const options = { timeout: entry.timeoutMs, maxTotalTimeout: entry.timeoutMs };
  const started = performance.now();
  try {
    return await connections.use(
      input.server,
      entry,
      async ({ client, tools }) => {
        if (!tools.some((t) => t.name === input.tool))
          throw refuse('McpToolMissing', `MCP server ${input.server} offers no tool ${input.tool} (it offers ${tools.length} others)`);
        let result: Awaited<ReturnType<Client['callTool']>>;
        try {
          result = await client.callTool({ name: input.tool, arguments: input.arguments ?? {} }, undefined, options);
        } catch (err) {
          if (/structured content/i.test((err as Error).message))
            throw refuse('McpOutputInvalid', `MCP server ${input.server}, tool ${input.tool}: ${(err as Error).message}`);
          throw err;
        }
        const out = resultOf(input, result);
        const bytes = Buffer.byteLength(JSON.stringify(out));
        if (bytes > entry.maxResultBytes)
          throw refuse(
            'McpResultTooLarge',
            `MCP server ${input.server}, tool ${input.tool} returned ${bytes} bytes, over mcp.servers.${input.server}.maxResultBytes (${entry.maxResultBytes})`,
          );
        log.info({ isError: out.isError, bytes, ms: Math.round(performance.now() - started) }, 'MCP tool called');
        return out;
      },
      isFault,
    );
  } catch (err) {
    if (!(err instanceof McpConnectError)) throw err;
    const refused = findCause(err.cause, FetchRefusedError);
    if (refused) throw refuse('McpRefused', `MCP server ${input.server}: ${refused.message}`);
    throw new Error(`MCP server ${input.server} could not be reached: ${err.message}${err.stderr ? ` (its stderr: ${err.stderr})` : ''}`);
  }
}

/** A failure that may be the connection's: anything but Baton's own refusals. */
const isFault = (err: unknown): boolean => !(err instanceof ApplicationFailure && err.nonRetryable);

/** The tool's answer as history keeps it: its text, its structured part, the kinds of anything else. */
function resultOf(input: McpToolCall, result: Awaited<ReturnType<Client['callTool']>>): McpToolResult {
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
  return out;
}

export function mcpToolActivities(ctx: ActivityContext) {
  const connections = new McpConnections();
  return { callMcpTool: (input: McpToolCall) => callMcpTool(ctx, connections, input) };
}
