/**
 * `callMcpTool`: a workflow calls a tool of an MCP server configured on the worker (`mcp.servers`),
 * durably: the call is an activity, retried on infrastructure faults and timed out like any other,
 * and its result is in history, so a replay or a crash never calls the tool twice for one step.
 */
import { ApplicationFailure, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { z } from 'zod';
import type { BatonActivities } from '../activities';
import { RETRY } from './activity-stubs';
import { MCP_NON_RETRYABLE, type McpToolResult } from '../src/shared/mcp-tool-types';

export interface CallMcpToolOptions<T> {
  /**
   * A schema the tool's structured result must pass (`output` is then the parsed value). The result is
   * the server's word, untrusted: check it before acting on it.
   * @default not checked beyond the tool's own output schema
   */
  output?: z.ZodType<T>;
  /**
   * Time for one attempt.
   * @default '1 minute' (the server's own `timeoutMs` ends a call sooner)
   */
  startToCloseTimeout?: ActivityOptions['startToCloseTimeout'];
  /**
   * Attempts in all, 1 s to 30 s apart.
   * @default 5: a tool that keeps failing is the workflow's to decide on
   */
  maximumAttempts?: number;
}

export interface McpToolOutcome<T> extends McpToolResult {
  /** The structured result, parsed by `options.output` (absent without it, or when the tool failed). */
  output?: T;
}

/**
 * Calls `tool` of MCP server `server` with `args`. A tool's own failure comes back as `isError`
 * (decide on it); a server or tool not configured, a tool not offered, a result over the size cap or
 * one `options.output` refuses fail the call at once (ApplicationFailure, non-retryable).
 */
export async function callMcpTool<T = unknown>(
  server: string,
  tool: string,
  args: Record<string, unknown> = {},
  options: CallMcpToolOptions<T> = {},
): Promise<McpToolOutcome<T>> {
  const { callMcpTool: call } = proxyActivities<BatonActivities>({
    startToCloseTimeout: options.startToCloseTimeout ?? '1 minute',
    // Baton's own retry pacing; attempts and what is final are the MCP call's.
    retry: { ...RETRY, maximumAttempts: options.maximumAttempts ?? 5, nonRetryableErrorTypes: [...MCP_NON_RETRYABLE] },
  });
  const result = await call({ server, tool, arguments: args });
  if (!options.output || result.isError) return result;
  const parsed = options.output.safeParse(result.structuredContent);
  if (!parsed.success) {
    // Paths only: the values are the server's, and a failure's message enters history and logs.
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`).join('; ');
    throw ApplicationFailure.nonRetryable(
      `MCP tool ${tool} of ${server} returned a result the workflow refuses: ${where}`,
      'McpOutputInvalid',
    );
  }
  return { ...result, output: parsed.data };
}
