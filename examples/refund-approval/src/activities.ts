/**
 * The shop's activities: the warehouse lookup and the local approval rule.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { AUTO_APPROVE_LIMIT_EUR, type RefundRequest } from './shop';

const shippedSerials: Record<string, string> = { A1042: 'SN-4471', A1077: 'SN-5120' };

/** The serial number the warehouse shipped for an order. */
export async function findSerialNumber(orderId: string): Promise<string> {
  const serial = shippedSerials[orderId];
  if (!serial) throw ApplicationFailure.nonRetryable(`no shipment on record for order ${orderId}`, 'UnknownOrder');
  return serial;
}

/** The local approval step: small refunds are approved, larger ones go to a manager. */
export async function decideRefund(request: RefundRequest): Promise<{ decision: 'approved' | 'escalated'; reason: string }> {
  return request.amount <= AUTO_APPROVE_LIMIT_EUR
    ? { decision: 'approved', reason: `${request.amount} ${request.currency} is within the automatic limit of ${AUTO_APPROVE_LIMIT_EUR}` }
    : { decision: 'escalated', reason: `${request.amount} ${request.currency} is over ${AUTO_APPROVE_LIMIT_EUR}: a manager decides` };
}
