/**
 * A workflow's call of an MCP tool and what comes back: plain data, shared by the activity that makes
 * the call on the worker and the workflow-safe helper (`callMcpTool` from `baton/workflow`).
 */

/** The activity's input: which configured server, which allowed tool, with what arguments. */
export interface McpToolCall {
  /** A server of `mcp.servers`, by name. */
  server: string;
  /** One of that server's `tools`. */
  tool: string;
  /** The tool's arguments (JSON; they enter history). */
  arguments: Record<string, unknown>;
}

/**
 * What the tool returned: untrusted data from the server, as an agent's text is. `isError` is the
 * tool's own failure (the call itself went through); `text` joins its text contents.
 */
export interface McpToolResult {
  server: string;
  tool: string;
  isError: boolean;
  /** The text contents, joined by newlines. */
  text: string;
  /** The structured result, checked by the MCP client against the tool's output schema when it declares one. */
  structuredContent?: Record<string, unknown>;
  /** Kinds of other contents the tool returned (image, audio, resource...), not kept. */
  omitted?: string[];
}

/** Failure types of a call that will not work by retrying: the workflow sees them at once. */
export const MCP_NON_RETRYABLE = [
  'McpServerUnknown',
  'McpToolNotAllowed',
  'McpToolMissing',
  'McpResultTooLarge',
  'McpOutputInvalid',
  'McpRefused',
] as const;

/** Largest arguments a workflow may send, in bytes of JSON. */
export const MAX_MCP_ARGUMENT_BYTES = 64 * 1024;
