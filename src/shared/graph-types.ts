/**
 * Task graphs: the spec a caller writes, and the record `baton graph show --json` prints.
 * Workflow-safe: plain JSON only.
 */
import { z } from 'zod';
import { PartSchema, type TaskState } from './a2a-types';
import { ContractSchema, identifier, type ArtifactRecord, type OutcomeKind } from './delegation-types';

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
    /** How many nodes may run at once. Default 4. */
    concurrency: z.number().int().min(1).max(100).default(4),
    nodes: z.array(GraphNodeSpecSchema).min(1).max(200),
  })
  .strict();
export type GraphSpec = z.infer<typeof GraphSpecSchema>;
export type GraphSpecInput = z.input<typeof GraphSpecSchema>;

export interface GraphInput {
  spec: GraphSpec;
  tenant: string;
  owner: string;
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
  reasons: string[];
  remote: { taskId?: string; contextId?: string; state?: TaskState };
  /** The dependencies' remote tasks, sent as the message's `referenceTaskIds`. */
  referenceTaskIds: string[];
  /** When the node's first turn went out and when it settled (the activities' clocks). */
  window?: { start?: string; end?: string };
  artifacts: ArtifactRecord[];
}

/** One version of an artifact: a task's artifact of that name in that context. */
export interface ArtifactVersion {
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
  versions: ArtifactVersion[];
  /** The artifactId of the newest accepted version, what users see by default. */
  latestAccepted?: string;
}

export type GraphOutcomeKind = 'ACCEPTED' | 'FAILED' | 'CANCELED';

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
  nodes: GraphNodeRecord[];
  /** The one contextId per agent within this graph, as the agent chose it. */
  contexts: Record<string, string>;
  lineage: LineageEntry[];
  cancel?: { by: string; reason: string };
}
