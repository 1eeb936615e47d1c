/**
 * The shop's own data: what a refund request names, and an order as its order system (an MCP server)
 * gives it. Plain types and a zod schema, safe for workflows and activities alike.
 */
import { z } from 'zod';

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
  /** What the supplier's verification came to, with the ids to look it up (`baton show <id>`); absent when the order lookup denied it first. */
  verification?: { delegationId: string; outcome: string; remoteTaskId?: string };
}

/** An order as the order system's `lookup_order` tool returns it; the workflow checks the result against it. */
export const OrderSchema = z.object({
  orderId: z.string(),
  /** The serial number of the product shipped. */
  serialNumber: z.string(),
  amountPaid: z.number(),
  currency: z.literal('EUR'),
});
export type Order = z.infer<typeof OrderSchema>;

/** Refunds up to this amount are approved without a manager once the supplier's verdict is accepted. */
export const AUTO_APPROVE_LIMIT_EUR = 500;
