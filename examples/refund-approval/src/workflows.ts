/**
 * The refund approval process. The order is looked up in the shop's order system (an MCP tool, called
 * durably through Baton); the supplier's agent verifies the inspection report (a Baton delegation: a
 * child workflow); when it asks for the serial number, the warehouse workflow answers by Signal with
 * the one the order system gave; only an accepted verdict lets the local approval step decide.
 */
import { getExternalWorkflowHandle, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import { answerSignal, callMcpTool, delegate } from 'baton-a2a/workflow';
import type * as activities from './activities';
import { OrderSchema, type RefundDecision, type RefundRequest } from './shop';

const { decideRefund } = proxyActivities<typeof activities>({ startToCloseTimeout: '10s' });

export async function refundApproval(request: RefundRequest): Promise<RefundDecision> {
  // What the order system returns is its word, not ours: checked against the shape this process relies on.
  const order = await callMcpTool('orders', 'lookup_order', { orderId: request.orderId }, { output: OrderSchema });
  if (order.isError || !order.output) return { refundId: request.refundId, decision: 'denied', reasons: [`order lookup: ${order.text}`] };
  if (request.amount > order.output.amountPaid)
    return {
      refundId: request.refundId,
      decision: 'denied',
      reasons: [
        `a refund of ${request.amount} is more than the ${order.output.amountPaid} ${order.output.currency} paid for order ${request.orderId}`,
      ],
    };
  const serialNumber = order.output.serialNumber;

  const parts = [{ text: `Verify inspection report ${request.reportId ?? '(none given)'} against order ${request.orderId}` }];
  const verification = await delegate({
    agent: 'supplier-qa',
    caller: { tenant: 'shop', user: 'refund-desk' },
    parts,
    // Accept only a schema-valid "pass" verdict about this very order and report.
    policy: 'supplier-verdict',
    onRequest: async ({ delegationId, request: asked }) => {
      await startChild(warehouseAnswer, {
        workflowId: `${asked.requestId}/warehouse`,
        args: [{ delegationId, requestId: asked.requestId, serialNumber }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    },
  });
  const summary = { delegationId: verification.id, outcome: verification.outcome, remoteTaskId: verification.remote.taskId };
  if (!verification.accepted) {
    return {
      refundId: request.refundId,
      decision: 'denied',
      reasons: [`supplier verification ended ${verification.outcome}`, ...verification.reasons],
      verification: summary,
    };
  }
  const local = await decideRefund(request);
  return { refundId: request.refundId, decision: local.decision, reasons: [...verification.reasons, local.reason], verification: summary };
}

/** The warehouse: answers the supplier's question about an order with the serial number it shipped. */
export async function warehouseAnswer(input: { delegationId: string; requestId: string; serialNumber: string }): Promise<void> {
  await getExternalWorkflowHandle(input.delegationId).signal(answerSignal, {
    requestId: input.requestId,
    parts: [{ text: input.serialNumber }],
    caller: { tenant: 'shop', user: 'warehouse' },
  });
}
