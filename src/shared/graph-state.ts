/**
 * The graph record and the events that change it: which nodes may start, what a settled node means for
 * the others (skips, fail-fast), follow-ups, cancel and the outcome. The workflow only wires child
 * workflows and Updates to these methods; everything here is unit-tested without Temporal.
 */
import type { Part } from './a2a-types';
import type { DelegationResult } from './delegation-result';
import type { Caller, DelegationInput } from './delegation-types';
import { graphProblems, normalizeNode } from './graph-spec';
import type { GraphInput, GraphNodeRecord, GraphNodeSpec, GraphRecord } from './graph-types';
import { delegationSchemas, graphSchemas } from './schemas-on-demand';
import { lineageOf } from './lineage';

/** What a node is sent: its request, the dependencies' tasks and accepted artifacts, and the agent's context. */
export interface NodeRequest {
  parts: Part[];
  referenceTaskIds: string[];
  contextId?: string;
}

export class GraphState {
  readonly record: GraphRecord;
  private readonly specs = new Map<string, GraphNodeSpec>();
  /** Nodes in the order they settled: lineage lists versions in this order. */
  private readonly settleOrder: GraphNodeRecord[] = [];
  /** Bumped on every change, so the workflow can wait for "something happened". */
  version = 0;

  constructor(id: string, input: GraphInput, batonVersion?: string) {
    this.record = {
      id,
      ...(batonVersion ? { batonVersion } : {}),
      tenant: input.tenant,
      owner: input.owner,
      status: 'RUNNING',
      failurePolicy: input.spec.failurePolicy,
      concurrency: input.spec.concurrency,
      nodes: [],
      contexts: {},
      lineage: [],
    };
    for (const node of input.spec.nodes) this.add(normalizeNode(node), false, id);
  }

  private add(spec: GraphNodeSpec, followUp: boolean, graphId = this.record.id): GraphNodeRecord {
    this.specs.set(spec.id, spec);
    const node: GraphNodeRecord = {
      id: spec.id,
      agent: spec.agent,
      dependsOn: spec.dependsOn,
      ...(spec.refines ? { refines: spec.refines } : {}),
      ...(followUp ? { followUp: true } : {}),
      status: 'PENDING',
      delegationId: `${graphId}/${spec.id}`,
      reasons: [],
      remote: {},
      referenceTaskIds: [],
      artifacts: [],
    };
    this.record.nodes.push(node);
    this.version += 1;
    return node;
  }

  node(id: string): GraphNodeRecord {
    const found = this.record.nodes.find((n) => n.id === id);
    if (!found) throw new Error(`no node ${id}`);
    return found;
  }

  spec(id: string): GraphNodeSpec {
    const found = this.specs.get(id);
    if (!found) throw new Error(`no node ${id}`);
    return found;
  }

  get running(): GraphNodeRecord[] {
    return this.record.nodes.filter((n) => n.status === 'RUNNING');
  }

  /** True once every node has settled or been skipped. */
  get done(): boolean {
    return this.record.nodes.every((n) => n.status === 'SETTLED' || n.status === 'SKIPPED');
  }

  /**
   * Nodes that may start now, in spec order: every dependency ACCEPTED, a free slot under the
   * concurrency limit, and the agent's context known or not being opened by another running node
   * (so each agent gets one context per graph).
   */
  startable(): GraphNodeRecord[] {
    if (this.record.status !== 'RUNNING') return [];
    let free = this.record.concurrency - this.running.length;
    const opening = new Set(this.running.filter((n) => !n.remote.contextId && !this.record.contexts[n.agent]).map((n) => n.agent));
    const chosen: GraphNodeRecord[] = [];
    for (const node of this.record.nodes) {
      if (free <= 0) break;
      if (node.status !== 'PENDING') continue;
      if (!node.dependsOn.every((d) => this.node(d).outcome === 'ACCEPTED')) continue;
      if (!this.record.contexts[node.agent]) {
        if (opening.has(node.agent)) continue;
        opening.add(node.agent);
      }
      chosen.push(node);
      free -= 1;
    }
    return chosen;
  }

  /** Marks a node started and says what to send it. */
  start(id: string): NodeRequest {
    const node = this.node(id);
    const spec = this.spec(id);
    const deps = node.dependsOn.map((d) => this.node(d));
    node.referenceTaskIds = deps.flatMap((d) => (d.remote.taskId ? [d.remote.taskId] : []));
    node.status = 'RUNNING';
    this.version += 1;
    const references = deps.flatMap((d) =>
      d.artifacts.map((a) => ({
        node: d.id,
        taskId: d.remote.taskId,
        artifactId: a.artifactId,
        name: a.name,
        mediaType: a.mediaType,
        sha256: a.sha256,
        size: a.size,
      })),
    );
    const parts: Part[] = [...(spec.parts ?? [{ text: spec.text ?? '' }])];
    // Accepted artifacts of the dependencies go along as references (ids and digests), not content.
    if (references.length) parts.push({ data: { references }, mediaType: 'application/json', metadata: { baton: 'artifact-references' } });
    const contextId = this.record.contexts[node.agent];
    return { parts, referenceTaskIds: node.referenceTaskIds, ...(contextId ? { contextId } : {}) };
  }

  /**
   * The input of a node's delegation: its request, the graph's tenant and owner, the node's policy and
   * contract. The delegation tells the graph its remote task (for the agent's context); requests are
   * answered at the node itself (`baton answer <graphId>/<nodeId>`), not through the graph.
   */
  delegationInput(id: string, request: NodeRequest): DelegationInput {
    const node = this.node(id);
    const spec = this.spec(id);
    return {
      agent: node.agent,
      parts: request.parts,
      tenant: this.record.tenant,
      owner: this.record.owner,
      ...(spec.acceptance ? { policy: spec.acceptance } : {}),
      ...(request.contextId ? { contextId: request.contextId } : {}),
      ...(request.referenceTaskIds.length ? { referenceTaskIds: request.referenceTaskIds } : {}),
      ...(spec.contract ? { contract: spec.contract } : {}),
      notify: { workflowId: this.record.id, remoteTask: true, requests: false },
    };
  }

  /** The agent named the node's task and context: the first context per agent becomes the graph's. */
  remoteKnown(id: string, taskId?: string, contextId?: string): void {
    const node = this.node(id);
    if (taskId) node.remote.taskId = taskId;
    if (contextId) {
      node.remote.contextId = contextId;
      this.record.contexts[node.agent] ??= contextId;
    }
    this.version += 1;
  }

  /**
   * Records the result of a node's delegation (the node is SETTLED); skips what can no longer run.
   * Returns the running nodes to cancel (fail-fast after a node that was not ACCEPTED).
   */
  nodeSettled(id: string, result: DelegationResult): string[] {
    const node = this.node(id);
    node.status = 'SETTLED';
    node.outcome = result.outcome;
    node.reasons = result.reasons;
    node.remote = { ...node.remote, ...definedOnly(result.remote) };
    if (node.remote.contextId) this.record.contexts[node.agent] ??= node.remote.contextId;
    node.artifacts = result.artifacts;
    const start = result.record?.turns[0]?.sentAt;
    const end = result.record?.remote.history.at(-1)?.observedAt;
    if (start || end) node.window = { ...(start ? { start } : {}), ...(end ? { end } : {}) };
    this.settleOrder.push(node);
    this.record.lineage = lineageOf(this.settleOrder);
    this.version += 1;
    if (result.outcome === 'ACCEPTED' || this.record.status !== 'RUNNING') {
      this.skipBlocked();
      return [];
    }
    if (this.record.failurePolicy === 'fail-fast') {
      const why = `fail-fast: node ${id} ended ${result.outcome}`;
      this.record.status = 'CANCELLING';
      this.record.cancel = { by: 'fail-fast', reason: why };
      this.skipPending(why);
      return this.running.map((n) => n.id);
    }
    this.skipBlocked();
    return [];
  }

  /** Skips pending nodes whose dependency ended without ACCEPTED or was skipped, transitively. */
  private skipBlocked(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const node of this.record.nodes) {
        if (node.status !== 'PENDING') continue;
        const blocker = node.dependsOn
          .map((d) => this.node(d))
          .find((d) => d.status === 'SKIPPED' || (d.status === 'SETTLED' && d.outcome !== 'ACCEPTED'));
        if (!blocker) continue;
        const how = blocker.status === 'SKIPPED' ? 'was skipped' : `ended ${blocker.outcome}`;
        this.skip(node, `depends on ${blocker.id}, which ${how}`);
        changed = true;
      }
    }
  }

  private skipPending(reason: string): void {
    for (const node of this.record.nodes) if (node.status === 'PENDING') this.skip(node, reason);
  }

  private skip(node: GraphNodeRecord, reason: string): void {
    node.status = 'SKIPPED';
    node.reasons = [reason];
    this.version += 1;
  }

  /** Why an `addFollowUp` payload (untrusted) is refused, or undefined. */
  refuseFollowUpPayload(payload: unknown): string | undefined {
    const parsed = graphSchemas().FollowUpSchema.safeParse(payload);
    if (parsed.success) return this.refuseFollowUp(parsed.data.node, parsed.data.caller);
    const issue = parsed.error.issues[0];
    return `invalid follow-up: ${issue?.path.join('.')}: ${issue?.message}`;
  }

  /** Why a `cancelGraph` payload is refused, or undefined. */
  refuseCancel(payload: unknown): string | undefined {
    const parsed = delegationSchemas().CancelSchema.safeParse(payload);
    if (!parsed.success) return `invalid cancel: ${parsed.error.issues[0]?.message}`;
    return this.refuseCaller(parsed.data.caller) ?? (this.record.status !== 'RUNNING' ? 'the graph is no longer running' : undefined);
  }

  /** Why a follow-up is refused, or undefined. */
  refuseFollowUp(spec: GraphNodeSpec, caller: Caller, knownAgents?: string[]): string | undefined {
    const denied = this.refuseCaller(caller);
    if (denied) return denied;
    if (this.record.status !== 'RUNNING') return 'the graph is no longer running';
    const problems = graphProblems([normalizeNode(spec)], { existing: this.record.nodes.map((n) => n.id), knownAgents });
    if (problems.length) return problems.join('; ');
    const refined = spec.refines ? this.node(spec.refines) : undefined;
    if (refined && refined.agent !== spec.agent)
      return `node ${spec.id}: refines ${refined.id}, which went to ${refined.agent}; a refinement goes to the same agent (same context)`;
    return undefined;
  }

  /** Adds a validated follow-up. A refinement depends on the node it refines, so it is a new task referencing it. */
  addFollowUp(spec: GraphNodeSpec): GraphNodeRecord {
    const node = this.add(normalizeNode(spec), true);
    this.skipBlocked();
    return node;
  }

  refuseCaller(caller: Caller): string | undefined {
    return caller.tenant === this.record.tenant ? undefined : `caller of tenant ${caller.tenant} has no access to this graph`;
  }

  /** Cancels the graph: pending nodes are skipped; returns the running ones to cancel. */
  requestCancel(by: string, reason: string): string[] {
    if (this.record.status === 'SETTLED' || this.record.cancel) return [];
    this.record.cancel = { by, reason };
    this.record.status = 'CANCELLING';
    this.skipPending(`graph cancelled: ${reason}`);
    return this.running.map((n) => n.id);
  }

  /** Settles the graph once every node is done. */
  finish(): GraphRecord {
    const notAccepted = this.record.nodes.filter((n) => n.status === 'SETTLED' && n.outcome !== 'ACCEPTED');
    const skipped = this.record.nodes.filter((n) => n.status === 'SKIPPED');
    const reasons = [
      ...notAccepted.map((n) => `node ${n.id} ended ${n.outcome}${n.reasons.length ? `: ${n.reasons.join('; ')}` : ''}`),
      ...skipped.map((n) => `node ${n.id} skipped: ${n.reasons[0] ?? ''}`),
    ];
    const cancelledByCaller = this.record.cancel && this.record.cancel.by !== 'fail-fast';
    const kind = cancelledByCaller ? 'CANCELED' : notAccepted.length || skipped.length ? 'FAILED' : 'ACCEPTED';
    this.record.outcome = {
      kind,
      reasons: cancelledByCaller
        ? [this.record.cancel?.reason ?? 'cancelled', ...reasons]
        : kind === 'ACCEPTED'
          ? [`all ${this.record.nodes.length} node(s) accepted`]
          : reasons,
    };
    this.record.status = 'SETTLED';
    this.version += 1;
    return this.record;
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
