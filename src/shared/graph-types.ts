/**
 * Task graphs: the spec a caller writes, and the record `baton graph show --json` prints.
 * Workflow-safe: plain JSON only.
 */
import { z } from 'zod';
import { PartSchema, type TaskState } from './a2a-types';
import { ContractSchema, identifier, type DelegationInput, type OutcomeKind } from './delegation-types';
import { MAX_GRAPH_CONCURRENCY, MAX_GRAPH_NODES } from './graph-limits';

/** A node id: short, no slash (it becomes the last segment of `<graphId>/<nodeId>`). */
export const nodeId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits and . _ - (starting with a letter or digit)');

export const GraphNodeSpecSchema = z
  .object({
    id: nodeId,
    /** Agent name in the registry. */
    agent: identifier,
    /** The request: `text` as a shorthand, or `parts`. */
    text: z.string().min(1).max(100_000).optional(),
    parts: z.array(PartSchema).min(1).max(64).optional(),
    /** Nodes that must be ACCEPTED before this one starts. */
    dependsOn: z.array(nodeId).max(64).default([]),
    /** A node whose accepted result this one refines (a new task that references it); implies dependsOn. */
    refines: nodeId.optional(),
    /** Acceptance policy; the agent's configured one when unset. */
    acceptance: identifier.optional(),
    contract: ContractSchema.optional(),
  })
  .strict()
  .refine((n) => (n.text === undefined) !== (n.parts === undefined), { message: 'give exactly one of text or parts' });
export type GraphNodeSpec = z.infer<typeof GraphNodeSpecSchema>;

export const FAILURE_POLICIES = ['fail-fast', 'continue'] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

export const GraphSpecSchema = z
  .object({
    /** Graph id (the workflow id); a caller may also give one when starting. */
    id: identifier.optional(),
    /** fail-fast: cancel running nodes at the first node not ACCEPTED. continue: finish independent branches. Default continue. */
    failurePolicy: z.enum(FAILURE_POLICIES).default('continue'),
    /** How many nodes may run at once. Default 4, at most 1,000. */
    concurrency: z.number().int().min(1).max(MAX_GRAPH_CONCURRENCY).default(4),
    nodes: z.array(GraphNodeSpecSchema).min(1).max(MAX_GRAPH_NODES),
  })
  .strict();
export type GraphSpec = z.infer<typeof GraphSpecSchema>;
export type GraphSpecInput = z.input<typeof GraphSpecSchema>;

export interface GraphInput {
  spec: GraphSpec;
  tenant: string;
  owner: string;
}

/** One batch of nodes whose delegations a graph starts as workflows of their own (activity `startNodes`). */
export interface NodeStarts {
  graphId: string;
  /** The graph's own task queue: its nodes run where it runs. */
  taskQueue: string;
  nodes: { delegationId: string; input: DelegationInput }[];
}

/** What a batch could not start: a workflow under a node's id that the graph did not start. */
export interface NodeStartsResult {
  refused: { delegationId: string; reason: string }[];
}

/** Update `addFollowUp`: one more node on a running graph. */
export const FollowUpSchema = z
  .object({
    node: GraphNodeSpecSchema,
    caller: z.object({ tenant: identifier, user: identifier }).strict(),
  })
  .strict();
export type FollowUp = z.infer<typeof FollowUpSchema>;

export type NodeStatus = 'PENDING' | 'RUNNING' | 'SETTLED' | 'SKIPPED';

/**
 * One node as `graph show` lists it. The node's details (its turns, artifacts, timings) live in its
 * delegation `<graphId>/<nodeId>`: the graph keeps only what its decisions need, so a graph of 10,000
 * nodes stays small enough to carry across continue-as-new.
 */
export interface GraphNodeRecord {
  id: string;
  agent: string;
  dependsOn: string[];
  refines?: string;
  /** Added with `addFollowUp` while the graph ran. */
  followUp?: boolean;
  status: NodeStatus;
  /** The child delegation: `<graphId>/<nodeId>`. */
  delegationId: string;
  outcome?: OutcomeKind;
  /** Why a node was not accepted or was skipped (the first 1,000 such nodes of a graph). */
  reasons: string[];
  /** The node's remote task and its delegation's status, read from visibility when a client shows the graph. */
  remote: { taskId?: string; state?: TaskState };
  delegation?: { status: string; pendingRequest?: string };
}

/** One version of an artifact: a task's artifact of that name in that context. */
export interface ArtifactVersion {
  /** 1 for the first version of this name in this context. */
  version: number;
  artifactId: string;
  taskId: string;
  nodeId: string;
  accepted: boolean;
  sha256: string;
  size: number;
  mediaType?: string;
}

/** Per context and artifact name, the versions in the order their nodes settled. */
export interface LineageEntry {
  contextId: string;
  name: string;
  /** The newest versions (at most 20), oldest first. */
  versions: ArtifactVersion[];
  /** How many versions there were in all. */
  versionCount: number;
  /** The artifactId of the newest accepted version, what users see by default. */
  latestAccepted?: string;
}

export type GraphOutcomeKind = 'ACCEPTED' | 'FAILED' | 'CANCELED';

/** Which nodes `graph show` lists: a page, optionally of one state (a status, or an outcome for settled nodes). */
export interface GraphPageRequest {
  offset?: number;
  limit?: number;
  state?: string;
}

export interface GraphRecord {
  id: string;
  /** The Baton version that started the graph (BatonVersion); absent before 0.2.0. */
  batonVersion?: string;
  tenant: string;
  owner: string;
  status: 'RUNNING' | 'CANCELLING' | 'SETTLED';
  outcome?: { kind: GraphOutcomeKind; reasons: string[] };
  failurePolicy: FailurePolicy;
  concurrency: number;
  /** Nodes in the graph, follow-ups included. */
  size: number;
  /** Nodes per state: PENDING, RUNNING, SKIPPED, or the outcome of a settled node. */
  counts: Record<string, number>;
  /** One page of nodes, in spec order (follow-ups last). */
  nodes: GraphNodeRecord[];
  /** Which page `nodes` is: `total` nodes match `state` (all nodes when unset). */
  page: { offset: number; limit: number; total: number; state?: string };
  /** The one contextId per agent within this graph, as the agent chose it. */
  contexts: Record<string, string>;
  /** At most 100 (context, name) pairs; `lineageOmitted` counts the pairs beyond. */
  lineage: LineageEntry[];
  lineageOmitted?: number;
  cancel?: { by: string; reason: string };
  /** Workflow runs so far: the graph continues as new when its history grows large. */
  runs: number;
}
