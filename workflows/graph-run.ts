/**
 * The async steps of one task graph: the registry check and each node's child delegation, each in a
 * cancellation scope of its own. `taskGraphWorkflow` registers the handlers and runs the loop;
 * `GraphState` makes every decision.
 */
import { CancellationScope, condition, isCancellation, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { brokenResult, resultOf, type DelegationResult } from '../src/shared/delegation-result';
import type { CancelRequest, RemoteTaskNotice } from '../src/shared/delegation-types';
import { GraphState } from '../src/shared/graph-state';
import type { FollowUp, GraphInput, GraphNodeSpec, GraphRecord } from '../src/shared/graph-types';
import { SA_BATON_VERSION, startingAttributes } from '../src/shared/search-attributes';
import { checking } from './activity-stubs';
import { delegationWorkflow } from './delegation';
import { refuse } from './refusal';

export class GraphRun {
  readonly state: GraphState;
  private readonly scopes = new Map<string, CancellationScope>();

  constructor(id: string, input: GraphInput) {
    this.state = new GraphState(id, input, workflowInfo().typedSearchAttributes.get(SA_BATON_VERSION));
  }

  get record(): GraphRecord {
    return this.state.record;
  }

  /** Problems with the agents and policies `nodes` name, as the worker's registry sees them. */
  async unknownNames(nodes: GraphNodeSpec[]): Promise<string[]> {
    const policies = nodes.flatMap((n) => (n.acceptance ? [n.acceptance] : []));
    const found = await checking.checkNames({ agents: nodes.map((n) => n.agent), policies });
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
    const node = this.record.nodes.find((n) => n.delegationId === notice.delegationId);
    if (node) this.state.remoteKnown(node.id, notice.taskId, notice.contextId);
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
    await condition(() => this.record.status === 'SETTLED');
    return this.record;
  }

  // ── Steps ───────────────────────────────────────────────────────────────────────────────────────

  /** Starts every node that may start now, and waits until something changes. */
  async advance(): Promise<void> {
    for (const node of this.state.startable()) this.launch(node.id);
    const seen = this.state.version;
    await condition(() => this.state.version !== seen);
  }

  /** The graph workflow itself was cancelled: its node scopes went with it; waits for the children to report how they ended. */
  async cancelled(): Promise<void> {
    this.state.requestCancel('temporal', 'the graph workflow was cancelled');
    await CancellationScope.nonCancellable(() => condition(() => this.state.done));
  }

  /** Starts one node's delegation in a scope of its own, so fail-fast and cancel can stop just it. */
  private launch(nodeId: string): void {
    const node = this.state.node(nodeId);
    const input = this.state.delegationInput(nodeId, this.state.start(nodeId));
    const scope = new CancellationScope();
    this.scopes.set(nodeId, scope);
    const run = async (): Promise<DelegationResult> => {
      const child = await startChild(delegationWorkflow, {
        workflowId: node.delegationId,
        typedSearchAttributes: startingAttributes({ agent: node.agent, tenant: this.record.tenant }),
        args: [input],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      });
      return resultOf(await child.result());
    };
    void scope.run(run).then(
      (result) => this.cancelNodes(this.state.nodeSettled(nodeId, result)),
      (err: unknown) => {
        const result = isCancellation(err)
          ? { ...brokenResult(node.delegationId, 'cancelled before the delegation started'), outcome: 'CANCELED' as const }
          : brokenResult(node.delegationId, `the delegation workflow did not finish: ${(err as Error).message}`);
        this.cancelNodes(this.state.nodeSettled(nodeId, result));
      },
    );
  }

  private cancelNodes(ids: string[]): void {
    for (const nodeId of ids) this.scopes.get(nodeId)?.cancel();
  }
}
