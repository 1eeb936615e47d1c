/**
 * A graph node's state as one word, and as the one letter a graph carries per node across
 * continue-as-new (`GraphCarry.states`). On its own, below the graph's types, limits and carry.
 */
import type { OutcomeKind } from './delegation-types';

/** One letter per node state, in `GraphCarry.states`. */
export const NODE_STATE_CODES = {
  PENDING: 'P',
  RUNNING: 'R',
  SKIPPED: 'S',
  ACCEPTED: 'A',
  REJECTED: 'J',
  REMOTE_FAILED: 'F',
  REMOTE_REJECTED: 'X',
  CANCELED: 'C',
  TIMED_OUT: 'T',
  ERROR: 'E',
} as const satisfies Record<'PENDING' | 'RUNNING' | 'SKIPPED' | OutcomeKind, string>;

export type NodeStateWord = keyof typeof NODE_STATE_CODES;
export type NodeStateCode = (typeof NODE_STATE_CODES)[NodeStateWord];

export const NODE_STATE_WORDS = Object.fromEntries(Object.entries(NODE_STATE_CODES).map(([word, code]) => [code, word])) as Record<
  NodeStateCode,
  NodeStateWord
>;
