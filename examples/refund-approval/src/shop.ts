/**
 * The shop's own data: what a refund request names, and the warehouse's record of shipped serials.
 * Plain types, safe for workflows and activities alike.
 */
export interface RefundRequest {
  refundId: string;
  /** The purchase order, like A1042. */
  orderId: string;
  /** The inspection report the supplier made, like inspection-92. */
  reportId?: string;
  amount: number;
  currency: 'EUR';
}

export interface RefundDecision {
  refundId: string;
  decision: 'approved' | 'denied' | 'escalated';
  reasons: string[];
  /** What the supplier's verification came to, with the ids to look it up (`baton show <id>`). */
  verification: { delegationId: string; outcome: string; remoteTaskId?: string };
}

/** Refunds up to this amount are approved without a manager once the supplier's verdict is accepted. */
export const AUTO_APPROVE_LIMIT_EUR = 500;
