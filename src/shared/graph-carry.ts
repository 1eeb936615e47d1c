/**
 * What a task graph takes with it when it continues as new. Plain JSON, written into the new run's
 * history as its second argument, so it is kept small whatever the graph's size: one letter per node,
 * and per-node data only where a later decision needs it.
 */
import type { OutcomeKind } from './delegation-types';
import type { GraphNodeSpec, LineageEntry } from './graph-types';

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

/** What a dependent of an ACCEPTED node is sent about it: its task and its accepted artifacts (by reference). */
export interface Handoff {
  taskId?: string;
  references: ArtifactReference[];
}

export interface ArtifactReference {
  node: string;
  taskId?: string;
  artifactId: string;
  name?: string;
  mediaType?: string;
  sha256: string;
  size: number;
}

export interface GraphCarry {
  /** One `NODE_STATE_CODES` letter per node: the spec's nodes, then the follow-ups. */
  states: string;
  /** Nodes added while the graph ran, in order. */
  followUps: GraphNodeSpec[];
  /** Why nodes were not accepted or were skipped (the first 1,000 such nodes). */
  notes: Record<string, string[]>;
  /** ACCEPTED nodes a node may still depend on. */
  handoffs: Record<string, Handoff>;
  contexts: Record<string, string>;
  lineage: LineageEntry[];
  lineageOmitted: number;
  /** The threshold the first run was given (the worker's `worker.continueAsNewAfterEvents`). */
  afterEvents: number;
  /** How often the run asks about nodes an earlier run started (the worker's `worker.graphBackstop`); absent: 10m. */
  backstop?: string;
  /** Runs before this one. */
  runs: number;
}
