/**
 * taskGraphWorkflow: a DAG of delegations. Each node is a child `delegationWorkflow` with id
 * `<graphId>/<nodeId>`; `GraphState` decides what starts, what is skipped and what is cancelled.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  ParentClosePolicy,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { brokenResult, resultOf, type DelegationResult } from '../src/shared/delegation-result';
import { CancelSchema } from '../src/shared/delegation-types';
import { graphProblems, normalizeNode } from '../src/shared/graph-spec';
import { GraphState } from '../src/shared/graph-state';
import { FollowUpSchema, type GraphInput, type GraphRecord } from '../src/shared/graph-types';
import { startingAttributes } from '../src/shared/search-attributes';
import type { BatonActivities } from '../activities';
import type { GraphNodeSpec } from '../src/shared/graph-types';
import { delegationWorkflow } from './delegation';
import { addFollowUpUpdate, cancelGraphUpdate, graphStatusQuery, remoteTaskSignal } from './messages';

const { checkNames } = proxyLocalActivities<BatonActivities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 5 } });

/** Problems with the agents and policies `nodes` name, as the worker's registry sees them. */
async function unknownNames(nodes: GraphNodeSpec[]): Promise<string[]> {
  const policies = nodes.flatMap((n) => (n.acceptance ? [n.acceptance] : []));
  const found = await checkNames({ agents: nodes.map((n) => n.agent), policies });
  return [
    ...nodes
      .filter((n) => found.unknownAgents.includes(n.agent))
      .map((n) => `node ${n.id}: unknown agent ${n.agent} (known: ${found.knownAgents.join(', ') || 'none'})`),
    ...nodes
      .filter((n) => n.acceptance && found.unknownPolicies.includes(n.acceptance))
      .map((n) => `node ${n.id}: unknown acceptance policy ${n.acceptance}`),
  ];
}

function refuse(reason: string | undefined): void {
  if (reason) throw ApplicationFailure.nonRetryable(reason, 'Refused');
}

export async function taskGraphWorkflow(input: GraphInput): Promise<GraphRecord> {
  const id = workflowInfo().workflowId;
  const problems = graphProblems(input.spec.nodes.map(normalizeNode));
  if (problems.length) throw ApplicationFailure.nonRetryable(`the graph spec is not valid: ${problems.join('; ')}`, 'InvalidRequest');
  const state = new GraphState(id, input);
  const scopes = new Map<string, CancellationScope>();
  const cancelNodes = (ids: string[]): void => ids.forEach((nodeId) => scopes.get(nodeId)?.cancel());

  setHandler(graphStatusQuery, () => state.record);

  // Children report their remote task as soon as the agent names it: the context it opened is the one
  // every later node to that agent is sent in.
  setHandler(remoteTaskSignal, (notice) => {
    const node = state.record.nodes.find((n) => n.delegationId === notice.delegationId);
    if (node) state.remoteKnown(node.id, notice.taskId, notice.contextId);
  });

  setHandler(
    addFollowUpUpdate,
    async (followUp) => {
      const unknownInFollowUp = await unknownNames([followUp.node]);
      if (unknownInFollowUp.length) throw ApplicationFailure.nonRetryable(unknownInFollowUp.join('; '), 'Refused');
      // The graph may have moved on while the registry was asked.
      refuse(state.refuseFollowUp(followUp.node, followUp.caller));
      const node = state.addFollowUp(followUp.node);
      return { nodeId: node.id, delegationId: node.delegationId };
    },
    {
      validator: (followUp) => {
        const parsed = FollowUpSchema.safeParse(followUp);
        refuse(
          parsed.success
            ? state.refuseFollowUp(parsed.data.node, parsed.data.caller)
            : `invalid follow-up: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
        );
      },
    },
  );

  setHandler(
    cancelGraphUpdate,
    async (req) => {
      cancelNodes(state.requestCancel(`${req.caller.tenant}/${req.caller.user}`, req.reason ?? `cancelled by ${req.caller.user}`));
      await condition(() => state.record.status === 'SETTLED');
      return state.record;
    },
    {
      validator: (req) => {
        const parsed = CancelSchema.safeParse(req);
        refuse(
          parsed.success
            ? (state.refuseCaller(req.caller) ?? (state.record.status !== 'RUNNING' ? 'the graph is no longer running' : undefined))
            : `invalid cancel: ${parsed.error.issues[0]?.message}`,
        );
      },
    },
  );

  /** Starts one node's delegation in a scope of its own, so fail-fast and cancel can stop just it. */
  const launch = (nodeId: string): void => {
    const node = state.node(nodeId);
    const spec = state.spec(nodeId);
    const request = state.start(nodeId);
    const scope = new CancellationScope();
    scopes.set(nodeId, scope);
    const run = async (): Promise<DelegationResult> => {
      const child = await startChild(delegationWorkflow, {
        workflowId: node.delegationId,
        typedSearchAttributes: startingAttributes({ agent: node.agent, tenant: state.record.tenant }),
        args: [
          {
            agent: node.agent,
            parts: request.parts,
            tenant: state.record.tenant,
            owner: state.record.owner,
            ...(spec.acceptance ? { policy: spec.acceptance } : {}),
            ...(request.contextId ? { contextId: request.contextId } : {}),
            ...(request.referenceTaskIds.length ? { referenceTaskIds: request.referenceTaskIds } : {}),
            ...(spec.contract ? { contract: spec.contract } : {}),
            // Requests are answered at the node itself (`baton answer <graphId>/<nodeId>`), not by the graph.
            notify: { workflowId: id, remoteTask: true, requests: false },
          },
        ],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      });
      return resultOf(await child.result());
    };
    void scope.run(run).then(
      (result) => cancelNodes(state.settled(nodeId, result)),
      (err: unknown) => {
        const result = isCancellation(err)
          ? { ...brokenResult(node.delegationId, 'cancelled before the delegation started'), outcome: 'CANCELED' as const }
          : brokenResult(node.delegationId, `the delegation workflow did not finish: ${(err as Error).message}`);
        cancelNodes(state.settled(nodeId, result));
      },
    );
  };

  const unknown = await unknownNames(input.spec.nodes);
  if (unknown.length) throw ApplicationFailure.nonRetryable(`the graph spec is not valid: ${unknown.join('; ')}`, 'InvalidRequest');

  try {
    while (!state.done) {
      for (const node of state.startable()) launch(node.id);
      const seen = state.version;
      await condition(() => state.version !== seen);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // The graph workflow itself was cancelled: the node scopes are cancelled with it; wait for the
    // children to report how their remote tasks ended.
    state.requestCancel('temporal', 'the graph workflow was cancelled');
    await CancellationScope.nonCancellable(() => condition(() => state.done));
  }
  state.finish();
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return state.record;
}
