/**
 * The async steps of one task graph: the registry check, the batches that start its nodes'
 * delegations as workflows of their own (decision 0042; graphs from before start each as a child, in a
 * cancellation scope of its own) and the backstop. `taskGraphWorkflow` registers the handlers and runs
 * the loop; `GraphState` makes every decision.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  deprecatePatch,
  isCancellation,
  log,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { brokenResult, resultOf, type DelegationResult } from '../src/shared/delegation-result';
import type { CancelRequest, RemoteTaskNotice } from '../src/shared/delegation-types';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS } from '../src/shared/delegation-carry';
import { NODE_STATE_CODES, type GraphCarry } from '../src/shared/graph-carry';
import { DEFAULT_GRAPH_BACKSTOP } from '../src/shared/graph-limits';
import { graphCarriesDataUse, refuseGraphData } from '../src/shared/graph-data-use';
import { GraphState } from '../src/shared/graph-state';
import type { FollowUp, GraphInput, GraphNodeSpec, GraphRecord, NodeStarts } from '../src/shared/graph-types';
import { startingAttributes } from '../src/shared/search-attributes';
import { checking, describing, nodeStarting } from './activity-stubs';
import { delegationWorkflow } from './delegation';
import { refuse, startedInWindow } from './refusal';

/*
 * Patches from before the support window (docs/decisions/0033-support-window.md): every history a
 * 0.9.0 worker wrote took their new branch. `deprecatePatch` keeps writing and accepting the marker
 * for 0.9.0 workers in a rolling upgrade; removed in the release after 1.0.
 */
/** Graphs whose nodes tell them how they ended (`batonSettled`) and outlive a run (ABANDON). */
export const GRAPH_CONTINUE_AS_NEW = 'graph-continue-as-new';
/** Runs that ask the server about the nodes an earlier run started (see `watchCarried`). */
export const GRAPH_BACKSTOP = 'graph-backstop';

/**
 * Graphs that start their nodes as workflows of their own, in batches from an activity, and hear of
 * them only by Signal (decision 0042); older graphs start each node as a child workflow.
 */
export const GRAPH_NODES_BY_ACTIVITY = 'graph-nodes-by-activity';

/** Nodes one batch starts at most, and the characters of their inputs (far under Temporal's 2 MB per payload). */
const BATCH_NODES = 100;
const BATCH_CHARS = 500_000;

/** One node's start in a batch: its delegation's id and input. */
type NodeStart = NodeStarts['nodes'][number];

/** Characters of input and carry together past which a graph stays in one run (Temporal refuses payloads over 2 MB). */
const MAX_CARRY_CHARS = 1_800_000;

export class GraphRun {
  readonly state: GraphState;
  private readonly scopes = new Map<string, CancellationScope>();
  private afterEvents: number;
  /** How often `watchCarried` asks (`worker.graphBackstop`, kept for every run). */
  private backstop: string;
  /** Set once this run found its carry too large to continue as new. */
  private carryRefused = false;
  /** Child workflows and batches asked to start and not yet started: the run does not end with one in flight. */
  private starting = 0;
  /** Whether this run starts its nodes by activity, not as children (decided once per run, by patch). */
  private readonly byActivity: boolean;
  /** Nodes whose batch is in flight, and those of them to cancel as soon as it has started them. */
  private readonly inBatch = new Set<string>();
  private readonly cancelOnceStarted = new Set<string>();

  constructor(
    id: string,
    private readonly input: GraphInput,
    carried?: GraphCarry,
  ) {
    this.state = new GraphState(id, input, startedInWindow('graph'), carried);
    this.afterEvents = carried?.afterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
    this.backstop = carried?.backstop ?? DEFAULT_GRAPH_BACKSTOP;
    if (carried === undefined) deprecatePatch(GRAPH_CONTINUE_AS_NEW);
    this.byActivity = patched(GRAPH_NODES_BY_ACTIVITY);
  }

  get record(): GraphRecord {
    return this.state.record;
  }

  /**
   * Problems with the agents and policies `nodes` name, as the worker's registry sees them, and with
   * the data their edges would carry (docs/data-use.md); `all`: every node of the graph, `nodes` among them.
   */
  async unknownNames(nodes: GraphNodeSpec[], all: readonly GraphNodeSpec[] = nodes): Promise<string[]> {
    const policies = [...new Set(nodes.flatMap((n) => (n.acceptance ? [n.acceptance] : [])))];
    const agents = [...new Set(nodes.map((n) => n.agent))];
    const found = await checking.checkNames({ agents, policies, ...(graphCarriesDataUse(all) ? { dataUse: true as const } : {}) });
    if (found.continueAsNewAfterEvents) this.afterEvents = found.continueAsNewAfterEvents;
    if (found.graphBackstop) this.backstop = found.graphBackstop;
    return [
      ...nodes
        .filter((n) => found.unknownAgents.includes(n.agent))
        .map((n) => `node ${n.id}: unknown agent ${n.agent} (known: ${found.knownAgents.join(', ') || 'none'})`),
      ...nodes
        .filter((n) => n.acceptance && found.unknownPolicies.includes(n.acceptance))
        .map((n) => `node ${n.id}: unknown acceptance policy ${n.acceptance}`),
      ...(found.clearance ? refuseGraphData(nodes, all, found.clearance) : []),
    ];
  }

  // ── Handlers ────────────────────────────────────────────────────────────────────────────────────

  /** Signal `batonRemoteTask` from a node: the context it opened is the one later nodes to that agent use. */
  remoteKnown(notice: RemoteTaskNotice): void {
    const nodeId = this.state.nodeOf(notice.delegationId);
    if (nodeId) this.state.remoteKnown(nodeId, notice.contextId);
  }

  /** Update `addFollowUp`: checks the names with the registry, then adds the node. */
  async addFollowUp(followUp: FollowUp): Promise<{ nodeId: string; delegationId: string }> {
    const unknown = await this.unknownNames([followUp.node], [...this.state.nodeSpecs, followUp.node]);
    refuse(unknown.length ? unknown.join('; ') : undefined);
    // The graph may have moved on while the registry was asked.
    refuse(this.state.refuseFollowUp(followUp.node, followUp.caller));
    const node = this.state.addFollowUp(followUp.node);
    return { nodeId: node.id, delegationId: node.delegationId };
  }

  /** Update `cancelGraph`: cancels the running nodes, skips the rest; resolves with the settled record. */
  async cancel(req: CancelRequest): Promise<GraphRecord> {
    this.cancelNodes(this.state.requestCancel(`${req.caller.tenant}/${req.caller.user}`, req.reason ?? `cancelled by ${req.caller.user}`));
    await condition(() => this.state.status === 'SETTLED');
    return this.state.page();
  }

  // ── Steps ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * Starts every node that may start now, and waits until something changes. Once the history is full
   * it starts nothing more and, as soon as no child or batch is being started and no handler runs,
   * returns what the next run needs. Running nodes go on: their delegations tell the next run how they
   * ended. A start the server has not confirmed yet must be waited for: the dev server drops the start
   * of a child whose parent closed first (a graph that did not wait lost 328 of 10,000 nodes), and a
   * batch's result says which nodes it could not start.
   */
  async advance(): Promise<GraphCarry | undefined> {
    const full = this.historyFull();
    if (full) {
      const carry = this.readyToCarry();
      if (carry) return carry;
    } else if (this.byActivity) {
      this.launchBatches(this.state.startable().map((node) => node.id));
    } else {
      for (const node of this.state.startable()) this.launch(node.id);
    }
    const seen = this.state.version;
    await condition(() => this.state.version !== seen || (full && this.starting === 0 && allHandlersFinished()));
    return undefined;
  }

  private historyFull(): boolean {
    if (this.carryRefused || this.state.status !== 'RUNNING') return false;
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.afterEvents;
  }

  private readyToCarry(): GraphCarry | undefined {
    if (this.starting > 0 || !allHandlersFinished()) return undefined;
    const state = this.state.carry(this.afterEvents);
    if (!state) return undefined;
    const carry: GraphCarry = { ...state, backstop: this.backstop };
    const chars = JSON.stringify(carry).length + JSON.stringify(this.input).length;
    if (chars > MAX_CARRY_CHARS) {
      log.warn('the graph is too large to continue as new; it goes on in this run', { graphId: workflowInfo().workflowId, chars });
      this.carryRefused = true;
      return undefined;
    }
    log.info('continuing as new', {
      graphId: workflowInfo().workflowId,
      events: workflowInfo().historyLength,
      running: this.state.runningCount,
      runs: this.state.runs + 1,
    });
    return carry;
  }

  /**
   * The graph workflow itself was cancelled: the scopes of the nodes this run started went with it; the
   * nodes an earlier run started are cancelled by id. Waits for every node to report how it ended.
   */
  async cancelled(): Promise<void> {
    const running = this.state.requestCancel('temporal', 'the graph workflow was cancelled');
    await CancellationScope.nonCancellable(async () => {
      this.cancelNodes(running);
      await condition(() => this.state.done);
    });
  }

  /**
   * Nodes an earlier run started (and, by activity, every node) tell this run how they ended only by
   * Signal, and a delegation terminated by hand (or timed out by the server) sends none: every
   * `backstop`, while any of them runs, the server is asked. Goes on while the graph is cancelled,
   * which waits for them.
   */
  async watchCarried(): Promise<void> {
    if (this.byActivity) return this.watchNodes();
    const carried = this.state.runningIds();
    if (!carried.length) return;
    deprecatePatch(GRAPH_BACKSTOP);
    await CancellationScope.nonCancellable(async () => {
      for (;;) {
        await sleep(this.backstop);
        const unheard = carried.filter((id) => this.state.isRunning(id));
        if (!unheard.length) return;
        await this.askServer(unheard);
      }
    });
  }

  /** The backstop of a graph that starts its nodes by activity: every running node it is not starting. */
  private async watchNodes(): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      while (!this.state.done) {
        await sleep(this.backstop);
        const unheard = this.state.runningIds().filter((id) => !this.inBatch.has(id));
        if (unheard.length) await this.askServer(unheard);
      }
    });
  }

  /** Settles the nodes `unheard` whose delegation workflow has closed, as the server tells. */
  private async askServer(unheard: string[]): Promise<void> {
    try {
      const ended = await describing.endedDelegations(unheard.map((id) => this.state.node(id).delegationId));
      for (const result of ended) {
        // A node that ended by itself should have said so by Signal: make the rare miss visible.
        const nodeId = this.state.nodeOf(result.id);
        if (nodeId && this.state.isRunning(nodeId))
          log.warn('learned how a node ended by asking the server, not from its signal', {
            graphId: workflowInfo().workflowId,
            nodeId,
            outcome: result.outcome,
          });
        this.settled(result);
      }
    } catch (err) {
      log.warn('could not learn how running nodes are doing; asking again later', {
        graphId: workflowInfo().workflowId,
        error: (err as Error).message,
      });
    }
  }

  /** Signal `batonSettled`: a node's delegation ended (the only word a graph gets about nodes an earlier run started). */
  settled(result: DelegationResult): void {
    if (!isNotice(result)) {
      log.warn('a batonSettled signal that is not a delegation result was ignored', { graphId: workflowInfo().workflowId });
      return;
    }
    const nodeId = this.state.nodeOf(result.id);
    if (nodeId) this.nodeEnded(nodeId, result);
  }

  /** A node ended: by its child's result or by its Signal, whichever comes first. */
  private nodeEnded(nodeId: string, result: DelegationResult): void {
    if (this.state.isRunning(nodeId)) this.cancelNodes(this.state.nodeSettled(nodeId, result));
  }

  /**
   * Starts one node's delegation as a child in a scope of its own, so fail-fast and cancel can stop
   * just it: graphs from before decision 0042 (`GRAPH_NODES_BY_ACTIVITY`).
   */
  private launch(nodeId: string): void {
    const node = this.state.node(nodeId);
    const input = this.state.delegationInput(nodeId, this.state.start(nodeId));
    const tenant = this.input.tenant;
    const scope = new CancellationScope();
    this.scopes.set(nodeId, scope);
    const run = async (): Promise<DelegationResult> => {
      this.starting += 1;
      let child;
      try {
        child = await startChild(delegationWorkflow, {
          workflowId: node.delegationId,
          typedSearchAttributes: startingAttributes({ agent: node.agent, tenant }),
          args: [input],
          // A node outlives the run that started it when the graph continues as new; a cancel of the
          // graph reaches it through the graph (see cancelled()).
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
      } finally {
        this.starting -= 1;
      }
      return resultOf(await child.result());
    };
    void scope.run(run).then(
      (result) => this.nodeEnded(nodeId, result),
      (err: unknown) => {
        const result = isCancellation(err)
          ? brokenResult(node.delegationId, 'cancelled before the delegation started', 'CANCELED')
          : brokenResult(node.delegationId, `the delegation workflow did not finish: ${(err as Error).message}`);
        this.nodeEnded(nodeId, result);
      },
    );
  }

  /**
   * Starts the delegations of `nodeIds` as workflows of their own, a batch per activity call. Only a
   * batch's result or failure is written to the graph's history: nothing per node until its Signal.
   */
  private launchBatches(nodeIds: string[]): void {
    let batch: { nodeIds: string[]; nodes: NodeStart[]; chars: number } = { nodeIds: [], nodes: [], chars: 0 };
    for (const nodeId of nodeIds) {
      const input = { ...this.state.delegationInput(nodeId, this.state.start(nodeId)), settledFromActivity: true as const };
      const chars = JSON.stringify(input).length;
      if (batch.nodes.length >= BATCH_NODES || (batch.nodes.length > 0 && batch.chars + chars > BATCH_CHARS)) {
        this.startBatch(batch.nodeIds, batch.nodes);
        batch = { nodeIds: [], nodes: [], chars: 0 };
      }
      batch.nodeIds.push(nodeId);
      batch.nodes.push({ delegationId: this.state.node(nodeId).delegationId, input });
      batch.chars += chars;
      this.inBatch.add(nodeId);
    }
    if (batch.nodes.length) this.startBatch(batch.nodeIds, batch.nodes);
  }

  private startBatch(nodeIds: string[], nodes: NodeStart[]): void {
    const { workflowId: graphId, taskQueue } = workflowInfo();
    this.starting += 1;
    // Not cancellable: a cancel of a node in the batch waits for it (see cancelNodes), and so does a
    // cancel of the graph, so no delegation starts that nobody will cancel.
    void CancellationScope.nonCancellable(() => nodeStarting.startNodes({ graphId, taskQueue, nodes }))
      .then(
        (started) => ({ refused: new Map(started.refused.map((r) => [r.delegationId, r.reason])) }),
        (err: unknown) => ({ failed: ((err as Error).cause ?? (err as Error)) as Error }),
      )
      .then((outcome) => {
        this.starting -= 1;
        for (const nodeId of nodeIds) {
          this.inBatch.delete(nodeId);
          const cancel = this.cancelOnceStarted.delete(nodeId);
          const { delegationId } = this.state.node(nodeId);
          if ('failed' in outcome) {
            this.nodeEnded(nodeId, brokenResult(delegationId, `its delegation workflow could not be started: ${outcome.failed.message}`));
            // The batch may have started it before it failed: it must not run on unheard.
            this.cancelById(nodeId);
          } else if (outcome.refused.has(delegationId)) {
            this.nodeEnded(nodeId, brokenResult(delegationId, outcome.refused.get(delegationId) ?? 'not started'));
          } else if (cancel && this.state.isRunning(nodeId)) this.cancelById(nodeId);
        }
      });
  }

  /** Cancels nodes: by their scope when this run started them as children, else by id (once started). */
  private cancelNodes(ids: string[]): void {
    for (const nodeId of ids) {
      const scope = this.scopes.get(nodeId);
      if (scope) scope.cancel();
      else if (this.inBatch.has(nodeId)) this.cancelOnceStarted.add(nodeId);
      else this.cancelById(nodeId);
    }
  }

  private cancelById(nodeId: string): void {
    void getExternalWorkflowHandle(this.state.node(nodeId).delegationId)
      .cancel()
      .catch(() => undefined);
  }
}

/** The shape `batonSettled` must have (a Signal is anyone's to send: a bad one must not break the graph). */
function isNotice(r: unknown): r is DelegationResult {
  const n = r as Partial<DelegationResult> | null;
  return (
    typeof n?.id === 'string' &&
    typeof n.outcome === 'string' &&
    n.outcome in NODE_STATE_CODES &&
    !['PENDING', 'RUNNING', 'SKIPPED'].includes(n.outcome) &&
    Array.isArray(n.reasons) &&
    n.reasons.every((x) => typeof x === 'string') &&
    typeof n.remote === 'object' &&
    n.remote !== null &&
    Array.isArray(n.artifacts) &&
    n.artifacts.every((a) => typeof a?.artifactId === 'string' && typeof a.sha256 === 'string' && typeof a.size === 'number')
  );
}
