/**
 * The state of a task graph and the events that change it: which nodes may start, what a settled node
 * means for the others (skips, fail-fast), follow-ups, cancel and the outcome. The workflow only wires
 * child workflows and Updates to these methods; everything here is unit-tested without Temporal.
 *
 * Built for graphs of 10,000 nodes: a node is a letter in `states` plus its spec, per-node data is kept
 * only where a decision needs it (handoffs, notes, bounded lineage), and every event costs work in
 * proportion to the nodes it touches, not to the graph.
 */
import { graphCarriesDataUse, graphLabels, type InheritedLabel, type NodeLabels } from './graph-data-use';
import type { Part } from './a2a-types';
import type { DelegationResult } from './delegation-result';
import { FIRST_SEND_FLAGS } from './delegation-state';
import type { Caller, DelegationInput } from './delegation-types';
import {
  NODE_STATE_CODES,
  NODE_STATE_WORDS,
  type ArtifactReference,
  type GraphCarry,
  type Handoff,
  type NodeStateCode,
  type NodeStateWord,
} from './graph-carry';
import { onPage, pageWindow } from './graph-page';
import { graphProblems, normalizeNode } from './graph-spec';
import { MAX_GRAPH_NODES, MAX_GRAPH_PAGE, MAX_GRAPH_SPEC_CHARS } from './graph-limits';
import type { GraphInput, GraphNodeRecord, GraphNodeSpec, GraphPageRequest, GraphRecord } from './graph-types';
import { delegationSchemas, graphSchemas } from './schemas-on-demand';

/** Nodes whose reasons a graph keeps (not accepted or skipped); later ones are read from their delegation. */
export const MAX_NODE_NOTES = 1_000;
/** Characters of one node's reasons a graph keeps. */
const MAX_NOTE_CHARS = 500;
/** ACCEPTED nodes a follow-up may still depend on, beyond those a pending node depends on. */
export const MAX_HANDOFFS = 1_000;
/** Lineage: (context, name) pairs kept, and the newest versions kept per pair. */
export const MAX_LINEAGE_ENTRIES = 100;
export const MAX_LINEAGE_VERSIONS = 20;
/** Lines of reasons in a graph's outcome; the rest are counted. */
const MAX_OUTCOME_REASONS = 50;

/** What a node is sent: its request, the dependencies' tasks and accepted artifacts, and the agent's context. */
export interface NodeRequest {
  parts: Part[];
  referenceTaskIds: string[];
  contextId?: string;
  /** The labels the node's request inherits from the nodes it depends on (docs/data-use.md). */
  inherited?: InheritedLabel[];
}

type Header = Omit<GraphRecord, 'size' | 'counts' | 'nodes' | 'page'>;

export class GraphState {
  private readonly header: Header;
  private readonly specs: GraphNodeSpec[] = [];

  /** Every node's spec, the follow-ups' after the graph's own. */
  get nodeSpecs(): readonly GraphNodeSpec[] {
    return this.specs;
  }

  /** Every node's labels, worked out once (and again after a follow-up) for a graph whose requests carry data use. */
  private labels: Map<string, NodeLabels> | null | undefined;

  private inheritedBy(id: string): InheritedLabel[] {
    if (this.labels === undefined) this.labels = graphCarriesDataUse(this.specs) ? graphLabels(this.specs) : null;
    return this.labels?.get(id)?.inherited ?? [];
  }
  private readonly index = new Map<string, number>();
  /** Index of the first follow-up in `specs`. */
  private readonly firstFollowUp: number;
  private readonly codes: NodeStateCode[] = [];
  private readonly counts = new Map<NodeStateCode, number>();
  /** Per node, how many of its dependencies are not ACCEPTED yet. */
  private readonly waiting: number[] = [];
  /** Per node, the nodes that depend on it. */
  private readonly dependents: number[][] = [];
  /** Running node indexes, tracked apart so a graph of 10,000 nodes is not scanned for them. */
  private readonly runningSet = new Set<number>();
  /** PENDING nodes with every dependency ACCEPTED, in spec order. */
  private readonly ready: number[] = [];
  private readonly notes = new Map<string, string[]>();
  private readonly handoffs = new Map<string, Handoff>();
  private specChars: number;
  /** Bumped on every change, so the workflow can wait for "something happened". */
  version = 0;
  readonly afterEvents?: number;

  constructor(id: string, input: GraphInput, batonVersion?: string, carry?: GraphCarry) {
    this.header = {
      id,
      ...(batonVersion ? { batonVersion } : {}),
      tenant: input.tenant,
      owner: input.owner,
      status: 'RUNNING',
      failurePolicy: input.spec.failurePolicy,
      concurrency: input.spec.concurrency,
      contexts: { ...(carry?.contexts ?? {}) },
      lineage: carry?.lineage ?? [],
      ...(carry?.lineageOmitted ? { lineageOmitted: carry.lineageOmitted } : {}),
      runs: (carry?.runs ?? 0) + 1,
    };
    this.specChars = JSON.stringify(input.spec).length;
    for (const node of input.spec.nodes) this.add(normalizeNode(node));
    this.firstFollowUp = this.specs.length;
    if (!carry) return;
    this.afterEvents = carry.afterEvents;
    for (const node of carry.followUps) {
      this.specChars += JSON.stringify(node).length;
      this.add(node);
    }
    for (const [i, code] of [...carry.states].entries()) {
      this.setCode(i, code as NodeStateCode);
      if (code === 'R') this.runningSet.add(i);
    }
    for (const [nodeId, reasons] of Object.entries(carry.notes)) this.notes.set(nodeId, reasons);
    for (const [nodeId, handoff] of Object.entries(carry.handoffs)) this.handoffs.set(nodeId, handoff);
    this.ready.length = 0;
    for (let i = 0; i < this.specs.length; i++) {
      this.waiting[i] = this.deps(i).filter((d) => this.codes[d] !== 'A').length;
      if (this.codes[i] === 'P' && this.waiting[i] === 0) this.ready.push(i);
    }
  }

  private add(spec: GraphNodeSpec): number {
    const i = this.specs.length;
    this.specs.push(spec);
    this.index.set(spec.id, i);
    this.dependents.push([]);
    this.codes.push('P');
    this.counts.set('P', (this.counts.get('P') ?? 0) + 1);
    this.waiting.push(0);
    for (const d of this.deps(i)) {
      this.dependents[d]?.push(i);
      if (this.codes[d] !== 'A') this.waiting[i] = (this.waiting[i] ?? 0) + 1;
    }
    if (this.waiting[i] === 0) this.ready.push(i);
    this.version += 1;
    return i;
  }

  private deps(i: number): number[] {
    return (this.specs[i]?.dependsOn ?? []).map((d) => this.at(d));
  }

  private at(id: string): number {
    const i = this.index.get(id);
    if (i === undefined) throw new Error(`no node ${id}`);
    return i;
  }

  private setCode(i: number, code: NodeStateCode): void {
    const was = this.codes[i] as NodeStateCode;
    this.counts.set(was, (this.counts.get(was) ?? 0) - 1);
    this.counts.set(code, (this.counts.get(code) ?? 0) + 1);
    this.codes[i] = code;
    this.version += 1;
  }

  private count(code: NodeStateCode): number {
    return this.counts.get(code) ?? 0;
  }

  get status(): GraphRecord['status'] {
    return this.header.status;
  }

  get runs(): number {
    return this.header.runs;
  }

  get size(): number {
    return this.specs.length;
  }

  /** How many nodes run now. */
  get runningCount(): number {
    return this.count('R');
  }

  /** True once every node has settled or been skipped. */
  get done(): boolean {
    return this.count('P') === 0 && this.count('R') === 0;
  }

  isRunning(id: string): boolean {
    return this.codes[this.at(id)] === 'R';
  }

  /** The node's id, agent and delegation id. */
  node(id: string): { id: string; agent: string; delegationId: string } {
    const spec = this.specs[this.at(id)] as GraphNodeSpec;
    return { id, agent: spec.agent, delegationId: this.delegationId(id) };
  }

  /** The node a delegation id names, if it is one of this graph's. */
  nodeOf(delegationId: string): string | undefined {
    const prefix = `${this.header.id}/`;
    const id = delegationId.startsWith(prefix) ? delegationId.slice(prefix.length) : undefined;
    return id !== undefined && this.index.has(id) ? id : undefined;
  }

  private delegationId(nodeId: string): string {
    return `${this.header.id}/${nodeId}`;
  }

  /**
   * Nodes that may start now, in spec order: every dependency ACCEPTED, a free slot under the
   * concurrency limit, and the agent's context known or not being opened by another running node
   * (so each agent gets one context per graph).
   */
  startable(): GraphNodeRecord[] {
    if (this.header.status !== 'RUNNING') return [];
    let free = this.header.concurrency - this.runningCount;
    if (free <= 0) return [];
    const opening = new Set(this.openingAgents());
    const chosen: GraphNodeRecord[] = [];
    for (const i of this.ready) {
      if (free <= 0) break;
      const spec = this.specs[i] as GraphNodeSpec;
      if (!this.header.contexts[spec.agent]) {
        if (opening.has(spec.agent)) continue;
        opening.add(spec.agent);
      }
      chosen.push(this.row(i));
      free -= 1;
    }
    return chosen;
  }

  /** Agents a running node is opening a context with (none known yet). */
  private openingAgents(): string[] {
    return this.running
      .filter((i) => !this.header.contexts[(this.specs[i] as GraphNodeSpec).agent])
      .map((i) => (this.specs[i] as GraphNodeSpec).agent);
  }

  private get running(): number[] {
    return [...this.runningSet];
  }

  /** The nodes running now. */
  runningIds(): string[] {
    return this.running.map((i) => (this.specs[i] as GraphNodeSpec).id);
  }

  /** Marks a node started and says what to send it. */
  start(id: string): NodeRequest {
    const i = this.at(id);
    const spec = this.specs[i] as GraphNodeSpec;
    this.unready(i);
    this.setCode(i, 'R');
    this.runningSet.add(i);
    const handoffs = spec.dependsOn.map((d) => this.handoffs.get(d));
    const referenceTaskIds = handoffs.flatMap((h) => (h?.taskId ? [h.taskId] : []));
    const references: ArtifactReference[] = handoffs.flatMap((h) => h?.references ?? []);
    for (const d of this.deps(i)) this.dropHandoff(d);
    const parts: Part[] = [...(spec.parts ?? [{ text: spec.text ?? '' }])];
    // Accepted artifacts of the dependencies go along as references (ids and digests), not content.
    if (references.length) parts.push({ data: { references }, mediaType: 'application/json', metadata: { baton: 'artifact-references' } });
    const contextId = this.header.contexts[spec.agent];
    const inherited = this.inheritedBy(spec.id);
    return { parts, referenceTaskIds, ...(contextId ? { contextId } : {}), ...(inherited.length ? { inherited } : {}) };
  }

  private unready(i: number): void {
    const at = this.ready.indexOf(i);
    if (at >= 0) this.ready.splice(at, 1);
  }

  /** Forgets what dependents of node `d` are sent once none waits for it and the graph keeps many. */
  private dropHandoff(d: number): void {
    if (this.handoffs.size <= MAX_HANDOFFS) return;
    if ((this.dependents[d] ?? []).some((x) => this.codes[x] === 'P')) return;
    this.handoffs.delete((this.specs[d] as GraphNodeSpec).id);
  }

  /**
   * The input of a node's delegation: its request, the graph's tenant and owner, the node's policy and
   * contract. The delegation tells the graph its remote task (for the agent's context) and how it ended
   * (a graph that continued as new has no child result for the nodes an earlier run started); requests
   * are answered at the node itself (`baton answer <graphId>/<nodeId>`), not through the graph.
   */
  delegationInput(id: string, request: NodeRequest): DelegationInput {
    const spec = this.specs[this.at(id)] as GraphNodeSpec;
    return {
      agent: spec.agent,
      parts: request.parts,
      tenant: this.header.tenant,
      owner: this.header.owner,
      ...(spec.acceptance ? { policy: spec.acceptance } : {}),
      ...(request.contextId ? { contextId: request.contextId } : {}),
      ...(request.referenceTaskIds.length ? { referenceTaskIds: request.referenceTaskIds } : {}),
      ...(spec.contract ? { contract: spec.contract } : {}),
      ...(request.inherited ? { inherited: request.inherited } : {}),
      // The graph learns how the node ended by Signal, and its remote task only while the agent's
      // context is not known yet (every Signal waits on the graph's lock at the server).
      notify: { workflowId: this.header.id, remoteTask: !request.contextId, requests: false, settled: true },
      ...FIRST_SEND_FLAGS,
    };
  }

  /** The agent named the node's context: the first context per agent becomes the graph's. */
  remoteKnown(id: string, contextId?: string): void {
    const spec = this.specs[this.at(id)] as GraphNodeSpec;
    if (contextId) this.header.contexts[spec.agent] ??= contextId;
    this.version += 1;
  }

  /**
   * Records the result of a node's delegation; skips what can no longer run. Returns the running
   * nodes to cancel (fail-fast after a node that was not ACCEPTED).
   */
  nodeSettled(id: string, result: DelegationResult): string[] {
    const i = this.at(id);
    const spec = this.specs[i] as GraphNodeSpec;
    this.runningSet.delete(i);
    this.setCode(i, NODE_STATE_CODES[result.outcome]);
    const { taskId, contextId } = result.remote;
    if (contextId) this.header.contexts[spec.agent] ??= contextId;
    if (taskId && contextId) this.addLineage(id, taskId, contextId, result);
    if (result.outcome === 'ACCEPTED') {
      const dependents = this.dependents[i] ?? [];
      if (dependents.length || this.handoffs.size < MAX_HANDOFFS) this.handoffs.set(id, this.handoffOf(id, result));
      for (const x of dependents) {
        this.waiting[x] = (this.waiting[x] ?? 1) - 1;
        if (this.waiting[x] === 0 && this.codes[x] === 'P') insertSorted(this.ready, x);
      }
      return [];
    }
    this.note(id, result.reasons);
    if (this.header.status !== 'RUNNING') return [];
    if (this.header.failurePolicy === 'fail-fast') {
      const why = `fail-fast: node ${id} ended ${result.outcome}`;
      this.header.status = 'CANCELLING';
      this.header.cancel = { by: 'fail-fast', reason: why };
      this.skipPending(why);
      return this.running.map((r) => (this.specs[r] as GraphNodeSpec).id);
    }
    this.skipDependents(i);
    return [];
  }

  private handoffOf(id: string, result: DelegationResult): Handoff {
    const taskId = result.remote.taskId;
    return {
      ...(taskId ? { taskId } : {}),
      references: result.artifacts.map((a) => ({
        node: id,
        taskId,
        artifactId: a.artifactId,
        name: a.name,
        mediaType: a.mediaType,
        sha256: a.sha256,
        size: a.size,
      })),
    };
  }

  /** Lineage, bounded: the newest versions of the first pairs (the newest accepted one is always kept). */
  private addLineage(nodeId: string, taskId: string, contextId: string, result: DelegationResult): void {
    const accepted = result.outcome === 'ACCEPTED';
    for (const artifact of result.artifacts) {
      const name = artifact.name ?? artifact.artifactId;
      let entry = this.header.lineage.find((e) => e.contextId === contextId && e.name === name);
      if (!entry) {
        if (this.header.lineage.length >= MAX_LINEAGE_ENTRIES) {
          this.header.lineageOmitted = (this.header.lineageOmitted ?? 0) + 1;
          continue;
        }
        entry = { contextId, name, versions: [], versionCount: 0 };
        this.header.lineage.push(entry);
      }
      entry.versionCount += 1;
      entry.versions.push({
        version: entry.versionCount,
        artifactId: artifact.artifactId,
        taskId,
        nodeId,
        accepted,
        sha256: artifact.sha256,
        size: artifact.size,
        ...(artifact.mediaType ? { mediaType: artifact.mediaType } : {}),
      });
      if (accepted) entry.latestAccepted = artifact.artifactId;
      const kept = entry;
      while (kept.versions.length > MAX_LINEAGE_VERSIONS) {
        const oldest = kept.versions.findIndex((v) => v.artifactId !== kept.latestAccepted);
        kept.versions.splice(oldest, 1);
      }
    }
  }

  private note(id: string, reasons: string[]): void {
    if (this.notes.size >= MAX_NODE_NOTES && !this.notes.has(id)) return;
    const text = reasons.join('; ');
    this.notes.set(id, text.length > MAX_NOTE_CHARS ? [`${text.slice(0, MAX_NOTE_CHARS)}…`] : reasons);
  }

  /** Skips the pending nodes that depend on node `i` (not ACCEPTED, or skipped), transitively. */
  private skipDependents(i: number): void {
    const queue = [i];
    for (let q = queue.shift(); q !== undefined; q = queue.shift()) {
      const blocker = this.specs[q] as GraphNodeSpec;
      const how = this.codes[q] === 'S' ? 'was skipped' : `ended ${NODE_STATE_WORDS[this.codes[q] as NodeStateCode]}`;
      for (const x of this.dependents[q] ?? []) {
        if (this.codes[x] !== 'P') continue;
        this.skip(x, `depends on ${blocker.id}, which ${how}`);
        queue.push(x);
      }
    }
  }

  private skipPending(reason: string): void {
    for (let i = 0; i < this.codes.length; i++) if (this.codes[i] === 'P') this.skip(i, reason);
  }

  private skip(i: number, reason: string): void {
    this.setCode(i, 'S');
    this.unready(i);
    this.note((this.specs[i] as GraphNodeSpec).id, [reason]);
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
    return this.refuseCaller(parsed.data.caller) ?? (this.header.status !== 'RUNNING' ? 'the graph is no longer running' : undefined);
  }

  /** Why a follow-up is refused, or undefined. */
  refuseFollowUp(spec: GraphNodeSpec, caller: Caller, knownAgents?: string[]): string | undefined {
    const denied = this.refuseCaller(caller);
    if (denied) return denied;
    if (this.header.status !== 'RUNNING') return 'the graph is no longer running';
    if (this.size >= MAX_GRAPH_NODES) return `the graph has ${MAX_GRAPH_NODES} nodes, the most one graph holds; start another graph`;
    const node = normalizeNode(spec);
    const problems = graphProblems([node], { existing: this.specs.map((s) => s.id), knownAgents });
    if (problems.length) return problems.join('; ');
    if (this.specChars + JSON.stringify(node).length > MAX_GRAPH_SPEC_CHARS)
      return `the graph's spec would pass ${MAX_GRAPH_SPEC_CHARS} characters as JSON; send large inputs as artifacts, or start another graph`;
    const refined = spec.refines ? this.node(spec.refines) : undefined;
    if (refined && refined.agent !== spec.agent)
      return `node ${spec.id}: refines ${refined.id}, which went to ${refined.agent}; a refinement goes to the same agent (same context)`;
    const forgotten = node.dependsOn.find((d) => this.codes[this.at(d)] === 'A' && !this.handoffs.has(d));
    if (forgotten)
      return `node ${spec.id}: depends on ${forgotten}, which settled too long ago in this large graph to be a dependency; start a delegation that references its task (baton show ${this.delegationId(forgotten)})`;
    return undefined;
  }

  /** Adds a validated follow-up. A refinement depends on the node it refines, so it is a new task referencing it. */
  addFollowUp(spec: GraphNodeSpec): GraphNodeRecord {
    const node = normalizeNode(spec);
    this.labels = undefined;
    this.specChars += JSON.stringify(node).length;
    const i = this.add(node);
    const blocker = this.deps(i).find((d) => this.codes[d] !== 'A' && this.codes[d] !== 'P' && this.codes[d] !== 'R');
    if (blocker !== undefined) {
      const how = this.codes[blocker] === 'S' ? 'was skipped' : `ended ${NODE_STATE_WORDS[this.codes[blocker] as NodeStateCode]}`;
      this.skip(i, `depends on ${(this.specs[blocker] as GraphNodeSpec).id}, which ${how}`);
      this.skipDependents(i);
    }
    return this.row(i);
  }

  refuseCaller(caller: Caller): string | undefined {
    return caller.tenant === this.header.tenant ? undefined : `caller of tenant ${caller.tenant} has no access to this graph`;
  }

  /** Cancels the graph: pending nodes are skipped; returns the running ones to cancel. */
  requestCancel(by: string, reason: string): string[] {
    if (this.header.status === 'SETTLED' || this.header.cancel) return [];
    this.header.cancel = { by, reason };
    this.header.status = 'CANCELLING';
    this.skipPending(`graph cancelled: ${reason}`);
    return this.running.map((i) => (this.specs[i] as GraphNodeSpec).id);
  }

  /** Settles the graph once every node is done. */
  finish(): GraphRecord {
    const notAccepted: string[] = [];
    let skipped = 0;
    for (const [i, code] of this.codes.entries()) {
      if (code === 'A') continue;
      const id = (this.specs[i] as GraphNodeSpec).id;
      const reasons = this.notes.get(id) ?? [];
      if (code === 'S') skipped += 1;
      notAccepted.push(
        code === 'S'
          ? `node ${id} skipped: ${reasons[0] ?? ''}`
          : `node ${id} ended ${NODE_STATE_WORDS[code]}${reasons.length ? `: ${reasons.join('; ')}` : ''}`,
      );
    }
    const failed = notAccepted.length - skipped;
    const reasons =
      notAccepted.length > MAX_OUTCOME_REASONS
        ? [
            ...notAccepted.slice(0, MAX_OUTCOME_REASONS),
            `… and ${notAccepted.length - MAX_OUTCOME_REASONS} more node(s) not accepted or skipped`,
          ]
        : notAccepted;
    const cancelledByCaller = this.header.cancel && this.header.cancel.by !== 'fail-fast';
    const kind = cancelledByCaller ? 'CANCELED' : failed || skipped ? 'FAILED' : 'ACCEPTED';
    this.header.outcome = {
      kind,
      reasons: cancelledByCaller
        ? [this.header.cancel?.reason ?? 'cancelled', ...reasons]
        : kind === 'ACCEPTED'
          ? [`all ${this.size} node(s) accepted`]
          : reasons,
    };
    this.header.status = 'SETTLED';
    this.version += 1;
    return this.record;
  }

  private row(i: number): GraphNodeRecord {
    const spec = this.specs[i] as GraphNodeSpec;
    const code = this.codes[i] as NodeStateCode;
    const word = NODE_STATE_WORDS[code];
    const settled = code !== 'P' && code !== 'R' && code !== 'S';
    return {
      id: spec.id,
      agent: spec.agent,
      dependsOn: spec.dependsOn,
      ...(spec.refines ? { refines: spec.refines } : {}),
      ...(i >= this.firstFollowUp ? { followUp: true } : {}),
      status: settled ? 'SETTLED' : (word as 'PENDING' | 'RUNNING' | 'SKIPPED'),
      delegationId: this.delegationId(spec.id),
      ...(settled ? { outcome: word as Exclude<NodeStateWord, 'PENDING' | 'RUNNING' | 'SKIPPED'> } : {}),
      reasons: this.notes.get(spec.id) ?? [],
      remote: {},
    };
  }

  /** One page of the graph: nodes in spec order, optionally of one state (a status, or an outcome). */
  page(req?: GraphPageRequest): GraphRecord {
    return this.pageOf(req, MAX_GRAPH_PAGE);
  }

  private pageOf(req: GraphPageRequest | undefined, most: number): GraphRecord {
    const { offset, limit, state } = pageWindow(req, most);
    const nodes: GraphNodeRecord[] = [];
    let total = 0;
    for (const [i, code] of this.codes.entries()) {
      if (!onPage(NODE_STATE_WORDS[code], state)) continue;
      if (total >= offset && nodes.length < limit) nodes.push(this.row(i));
      total += 1;
    }
    return { ...this.headerCopy(), nodes, page: { offset, limit, total, ...(state ? { state } : {}) } };
  }

  /** The whole graph (every node): the workflow's result, and what the tests read. */
  get record(): GraphRecord {
    return this.pageOf({ limit: this.size }, this.size);
  }

  private headerCopy(): Omit<GraphRecord, 'nodes' | 'page'> {
    const counts: Record<string, number> = {};
    for (const [code, n] of this.counts) if (n > 0) counts[NODE_STATE_WORDS[code]] = n;
    return { ...structuredCloneJson(this.header), size: this.size, counts };
  }

  /**
   * What the next run needs, while the graph runs (a cancelling graph finishes in its run). Running
   * nodes stay RUNNING: their delegations tell the next run how they ended (`batonSettled`).
   */
  carry(afterEvents: number): GraphCarry | undefined {
    if (this.header.status !== 'RUNNING') return undefined;
    return {
      states: this.codes.join(''),
      followUps: this.specs.slice(this.firstFollowUp),
      notes: Object.fromEntries(this.notes),
      handoffs: Object.fromEntries(this.handoffs),
      contexts: { ...this.header.contexts },
      lineage: this.header.lineage,
      lineageOmitted: this.header.lineageOmitted ?? 0,
      afterEvents,
      runs: this.header.runs,
    };
  }
}

/** Inserts `x` into `sorted`, keeping it in order. */
function insertSorted(sorted: number[], x: number): void {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  sorted.splice(lo, 0, x);
}

/** A deep copy of plain JSON, so a returned record never aliases the state. */
function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
