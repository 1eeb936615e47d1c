/**
 * The refund approval process. The supplier's agent verifies the inspection report (a Baton
 * delegation: a child workflow); when it asks for the serial number, the warehouse workflow looks it
 * up and answers by Signal; only an accepted verdict lets the local approval step decide.
 */
import { getExternalWorkflowHandle, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import { answerSignal, delegate } from 'baton/workflow';
import type * as activities from './activities';
import type { RefundDecision, RefundRequest } from './shop';

const { findSerialNumber, decideRefund } = proxyActivities<typeof activities>({ startToCloseTimeout: '10s' });

export async function refundApproval(request: RefundRequest): Promise<RefundDecision> {
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
        args: [{ delegationId, requestId: asked.requestId, orderId: request.orderId }],
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

/** The warehouse: answers the supplier's question about an order with the shipped serial number. */
export async function warehouseAnswer(input: { delegationId: string; requestId: string; orderId: string }): Promise<void> {
  const serial = await findSerialNumber(input.orderId);
  await getExternalWorkflowHandle(input.delegationId).signal(answerSignal, {
    requestId: input.requestId,
    parts: [{ text: serial }],
    caller: { tenant: 'shop', user: 'warehouse' },
  });
}
