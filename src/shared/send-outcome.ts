/**
 * What a send activity reports to the workflow. Workflow-safe: plain JSON only.
 */
import type { Part } from './a2a-types';
import type { RemoteSnapshot } from './delegation-types';

/**
 * How a retried send went: the turn was found at the agent (not sent again), not found (sent again),
 * or could not be looked for (sent again; a duplicate remote task is possible).
 */
export type Reconciliation = 'found' | 'not-found' | 'unsupported';

/** A direct Message reply: the agent answered without creating a task. */
export interface DirectReply {
  messageId: string;
  parts: Part[];
  contextId?: string;
}

export type SendOutcome = (
  { kind: 'task'; snapshot: RemoteSnapshot; sentAt: string } | { kind: 'message'; reply: DirectReply; sentAt: string }
) & {
  /** Set when this was a retried attempt. */
  reconciliation?: Reconciliation;
  /** Calls to the agent this send made, lookups and reads after the send included. */
  calls: number;
  /** The turn's data labels and whether its terms went to the agent (a turn with data use only). */
  dataUse?: { labels: string[]; conveyed: boolean; acknowledged?: boolean };
};
