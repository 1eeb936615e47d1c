/**
 * The MCP tool call's pair (bench/mcp-tools.ts): an order looked up by a plain activity, or through
 * `callMcpTool`.
 */
import { proxyActivities } from '@temporalio/workflow';
import { callMcpTool } from '../workflows/api';
import type * as activities from './activities';

const { lookupOrder } = proxyActivities<typeof activities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 3 } });

/** The baseline: the same lookup as one plain activity of the worker. */
export async function localLookupWorkflow(orderId: string): Promise<unknown> {
  return lookupOrder(orderId);
}

/** The lookup through a configured MCP server (`server`: stdio or Streamable HTTP). */
export async function mcpLookupWorkflow(input: { server: string; orderId: string }): Promise<unknown> {
  return (await callMcpTool(input.server, 'lookup_order', { orderId: input.orderId })).structuredContent;
}
