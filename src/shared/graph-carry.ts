/**
 * What a task graph takes with it when it continues as new. Plain JSON, written into the new run's
 * history as its second argument, so it is kept small whatever the graph's size: one letter per node,
 * and per-node data only where a later decision needs it.
 */
import type { GraphNodeSpec, LineageEntry } from './graph-types';

export { NODE_STATE_CODES, NODE_STATE_WORDS, type NodeStateCode, type NodeStateWord } from './graph-node-states';

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
