/**
 * The async steps of one task graph: the registry check and each node's child delegation, each in a
 * cancellation scope of its own. `taskGraphWorkflow` registers the handlers and runs the loop;
 * `GraphState` makes every decision.
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
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { brokenResult, resultOf, type DelegationResult } from '../src/shared/delegation-result';
import type { CancelRequest, RemoteTaskNotice } from '../src/shared/delegation-types';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS } from '../src/shared/delegation-carry';
import { NODE_STATE_CODES, type GraphCarry } from '../src/shared/graph-carry';
import { DEFAULT_GRAPH_BACKSTOP } from '../src/shared/graph-limits';
import { GraphState } from '../src/shared/graph-state';
import type { FollowUp, GraphInput, GraphNodeSpec, GraphRecord } from '../src/shared/graph-types';
import { startingAttributes } from '../src/shared/search-attributes';
import { checking, describing } from './activity-stubs';
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
  /** Child workflows asked to start and not yet started: the run does not end with one in flight. */
  private starting = 0;

  constructor(
    id: string,
    private readonly input: GraphInput,
    carried?: GraphCarry,
  ) {
    this.state = new GraphState(id, input, startedInWindow('graph'), carried);
    this.afterEvents = carried?.afterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
    this.backstop = carried?.backstop ?? DEFAULT_GRAPH_BACKSTOP;
    if (carried === undefined) deprecatePatch(GRAPH_CONTINUE_AS_NEW);
  }

  get record(): GraphRecord {
    return this.state.record;
  }

  /** Problems with the agents and policies `nodes` name, as the worker's registry sees them. */
  async unknownNames(nodes: GraphNodeSpec[]): Promise<string[]> {
    const policies = [...new Set(nodes.flatMap((n) => (n.acceptance ? [n.acceptance] : [])))];
    const found = await checking.checkNames({ agents: [...new Set(nodes.map((n) => n.agent))], policies });
    if (found.continueAsNewAfterEvents) this.afterEvents = found.continueAsNewAfterEvents;
    if (found.graphBackstop) this.backstop = found.graphBackstop;
    return [
      ...nodes
        .filter((n) => found.unknownAgents.includes(n.agent))
        .map((n) => `node ${n.id}: unknown agent ${n.agent} (known: ${found.knownAgents.join(', ') || 'none'})`),
      ...nodes
        .filter((n) => n.acceptance && found.unknownPolicies.includes(n.acceptance))
        .map((n) => `node ${n.id}: unknown acceptance policy ${n.acceptance}`),
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
    const unknown = await this.unknownNames([followUp.node]);
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
   * it starts nothing more and, as soon as no child is being started and no handler runs, returns what
   * the next run needs. Running nodes go on: their delegations tell the next run how they ended. A start
   * the server has not confirmed yet must be waited for: the dev server drops the start of a
   * child whose parent closed first (a graph that did not wait lost 328 of 10,000 nodes).
   */
  async advance(): Promise<GraphCarry | undefined> {
    const full = this.historyFull();
    if (full) {
      const carry = this.readyToCarry();
      if (carry) return carry;
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
   * Nodes an earlier run started tell this run how they ended only by Signal, and a delegation
   * terminated by hand (or timed out by the server) sends none: every `backstop`, while any of them
   * runs, the server is asked. Goes on while the graph is cancelled, which waits for them.
   */
  async watchCarried(): Promise<void> {
    const carried = this.state.runningIds();
    if (!carried.length) return;
    deprecatePatch(GRAPH_BACKSTOP);
    await CancellationScope.nonCancellable(async () => {
      for (;;) {
        await sleep(this.backstop);
        const unheard = carried.filter((id) => this.state.isRunning(id));
        if (!unheard.length) return;
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
          log.warn('could not learn how nodes of an earlier run are doing; asking again later', {
            graphId: workflowInfo().workflowId,
            error: (err as Error).message,
          });
        }
      }
    });
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

  /** Starts one node's delegation in a scope of its own, so fail-fast and cancel can stop just it. */
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

  /** Cancels nodes: by their scope when this run started them, by id when an earlier run did. */
  private cancelNodes(ids: string[]): void {
    for (const nodeId of ids) {
      const scope = this.scopes.get(nodeId);
      if (scope) scope.cancel();
      else
        void getExternalWorkflowHandle(this.state.node(nodeId).delegationId)
          .cancel()
          .catch(() => undefined);
    }
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
