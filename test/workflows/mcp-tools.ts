/**
 * A workflow calling an MCP tool through `callMcpTool`, for the tests: the outcome, or the failure's
 * type and message when the call failed.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import { callMcpTool, type McpToolOutcome } from '../../workflows/api';

export interface ToolCallInput {
  server: string;
  tool: string;
  args?: Record<string, unknown>;
  /** Check the structured result: `order` as the server declares it, `wrong` a shape it does not have. */
  schema?: 'order' | 'wrong';
}

const ORDER = z.object({ orderId: z.string(), serialNumber: z.string(), amountPaid: z.number() });
const WRONG = z.object({ orderId: z.string(), amountPaid: z.string() });

export async function callTool(
  input: ToolCallInput,
): Promise<{ result?: McpToolOutcome<unknown>; failure?: { type?: string; message: string } }> {
  try {
    const output: z.ZodType<unknown> | undefined = input.schema === 'order' ? ORDER : input.schema === 'wrong' ? WRONG : undefined;
    return { result: await callMcpTool(input.server, input.tool, input.args ?? {}, { output, maximumAttempts: 2 }) };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure) return { failure: { type: cause.type ?? undefined, message: cause.message } };
    throw err;
  }
}
