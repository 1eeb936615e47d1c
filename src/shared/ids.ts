/**
 * Deterministic identifiers. Anything we send to an agent is named from the workflow id and a turn
 * number, so a replayed or retried step sends the same id again (never a random one).
 */

/** The messageId of turn `turn` (1-based) of delegation `delegationId`. */
export function turnMessageId(delegationId: string, turn: number): string {
  if (!Number.isInteger(turn) || turn < 1) throw new RangeError(`turn must be a positive integer, got ${turn}`);
  return `${delegationId}/turn-${turn}`;
}

/** Workflow id prefix for delegations started from the CLI or client without an explicit id. */
export const DELEGATION_ID_PREFIX = 'dlg-';
