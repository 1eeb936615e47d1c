/**
 * How large a task graph may be, and how much of it one read returns. Plain constants, no schemas:
 * workflow code imports them.
 */
import { NODE_STATE_CODES, type NodeStateWord } from './graph-node-states';

/** Most nodes one graph holds, follow-ups included. */
export const MAX_GRAPH_NODES = 10_000;
/** Most nodes one graph runs at once. */
export const MAX_GRAPH_CONCURRENCY = 1_000;
/**
 * Most characters of a spec as JSON, follow-ups included: the spec is the input of every run of the
 * graph workflow (continue-as-new carries it), and Temporal refuses a payload over 2 MB.
 */
export const MAX_GRAPH_SPEC_CHARS = 1_000_000;

/** Nodes per page unless asked otherwise, and the most a page holds. */
export const DEFAULT_GRAPH_PAGE = 100;
/** What a page may select: a node's status, or the outcome of a settled one. */
export const GRAPH_NODE_STATES = [...(Object.keys(NODE_STATE_CODES) as NodeStateWord[]), 'SETTLED'] as const;
export const MAX_GRAPH_PAGE = 1_000;

/** How often a run asks about the nodes an earlier run started, unless `worker.graphBackstop` says otherwise. */
export const DEFAULT_GRAPH_BACKSTOP = '10m';
