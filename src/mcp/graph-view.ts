/**
 * What an MCP tool returns about a task graph: its state and one page of nodes, each with the
 * resource of its delegation; reasons (which may quote an agent) marked untrusted.
 */
import { z } from 'zod';
import type { GraphRecord } from '../shared/graph-types';
import { delegationUri } from './resource-uris';
import { untrusted, UntrustedTextSchema } from './untrusted';

export const GraphViewSchema = z.object({
  id: z.string(),
  status: z.enum(['RUNNING', 'CANCELLING', 'SETTLED']),
  outcome: z.object({ kind: z.enum(['ACCEPTED', 'FAILED', 'CANCELED']), reasons: z.array(UntrustedTextSchema) }).optional(),
  size: z.number(),
  /** Nodes per state. */
  counts: z.record(z.string(), z.number()),
  nodes: z.array(
    z.object({
      id: z.string(),
      agent: z.string(),
      status: z.string(),
      outcome: z.string().optional(),
      delegationId: z.string(),
      /** The node's delegation (resources/read, or show_delegation with delegationId). */
      resource: z.string(),
      pendingRequestId: z.string().optional(),
      reasons: z.array(UntrustedTextSchema),
    }),
  ),
  page: z.object({ offset: z.number(), limit: z.number(), total: z.number() }),
  next: z.string(),
});
export type GraphView = z.infer<typeof GraphViewSchema>;

export function graphView(g: GraphRecord, maxChars: number): GraphView {
  const asking = g.nodes.filter((n) => n.delegation?.pendingRequest);
  return {
    id: g.id,
    status: g.status,
    ...(g.outcome ? { outcome: { kind: g.outcome.kind, reasons: g.outcome.reasons.slice(0, 20).map((r) => untrusted(r, maxChars)) } } : {}),
    size: g.size,
    counts: g.counts,
    nodes: g.nodes.map((n) => ({
      id: n.id,
      agent: n.agent,
      status: n.status,
      ...(n.outcome ? { outcome: n.outcome } : {}),
      delegationId: n.delegationId,
      resource: delegationUri(n.delegationId),
      ...(n.delegation?.pendingRequest ? { pendingRequestId: n.delegation.pendingRequest } : {}),
      reasons: n.reasons.slice(0, 5).map((r) => untrusted(r, maxChars)),
    })),
    page: { offset: g.page.offset, limit: g.page.limit, total: g.page.total },
    next: g.outcome
      ? `Settled ${g.outcome.kind}: show each node's delegation for its artifacts.`
      : asking.length
        ? `Node(s) ${asking.map((n) => n.id).join(', ')} ask for something: show_delegation on their delegationId, then answer.`
        : `Running: call show_graph with id ${g.id} (waitSeconds to wait).`,
  };
}
