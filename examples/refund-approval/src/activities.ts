/**
 * The shop's activity: the local approval rule. (Orders are looked up through the order system's MCP
 * server, by Baton's `callMcpTool`.)
 */
import { AUTO_APPROVE_LIMIT_EUR, type RefundRequest } from './shop';

/** The local approval step: small refunds are approved, larger ones go to a manager. */
export async function decideRefund(request: RefundRequest): Promise<{ decision: 'approved' | 'escalated'; reason: string }> {
  return request.amount <= AUTO_APPROVE_LIMIT_EUR
    ? { decision: 'approved', reason: `${request.amount} ${request.currency} is within the automatic limit of ${AUTO_APPROVE_LIMIT_EUR}` }
    : { decision: 'escalated', reason: `${request.amount} ${request.currency} is over ${AUTO_APPROVE_LIMIT_EUR}: a manager decides` };
}
