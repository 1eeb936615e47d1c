/**
 * The bare workflow's one activity, and the plain lookup the MCP tool call is compared with.
 */
import { directCall } from './direct-call';

export async function callAgent(input: { baseUrl: string; text: string; messageId: string }): Promise<string> {
  return directCall(input.baseUrl, input.text, input.messageId);
}

/** What the MCP server's lookup_order returns, without MCP. */
export async function lookupOrder(orderId: string): Promise<unknown> {
  return { orderId, serialNumber: 'SN-4471', amountPaid: 129 };
}
