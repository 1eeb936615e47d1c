/**
 * taskGraphWorkflow: a DAG of delegations. Each node is a child `delegationWorkflow` with id
 * `<graphId>/<nodeId>`. Handlers first, then the loop; the steps are `GraphRun`'s, the decisions `GraphState`'s.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { graphProblems, normalizeNode } from '../src/shared/graph-spec';
import type { GraphInput, GraphRecord } from '../src/shared/graph-types';
import { GraphRun } from './graph-run';
import { addFollowUpUpdate, cancelGraphUpdate, graphStatusQuery, remoteTaskSignal } from './messages';
import { refuse } from './refusal';

/** A spec the graph cannot run: the caller's to fix (the client checks the same before starting). */
function invalidSpec(problems: string[]): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`the graph spec is not valid: ${problems.join('; ')}`, 'InvalidRequest');
}

export async function taskGraphWorkflow(input: GraphInput): Promise<GraphRecord> {
  const problems = graphProblems(input.spec.nodes.map(normalizeNode));
  if (problems.length) throw invalidSpec(problems);
  const run = new GraphRun(workflowInfo().workflowId, input);
  const { state } = run;

  setHandler(graphStatusQuery, () => run.record);
  setHandler(remoteTaskSignal, (notice) => run.remoteKnown(notice));
  setHandler(addFollowUpUpdate, (f) => run.addFollowUp(f), { validator: (f) => refuse(state.refuseFollowUpPayload(f)) });
  setHandler(cancelGraphUpdate, (c) => run.cancel(c), { validator: (c) => refuse(state.refuseCancel(c)) });

  const unknown = await run.unknownNames(input.spec.nodes);
  if (unknown.length) throw invalidSpec(unknown);
  try {
    while (!state.done) await run.advance();
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await run.cancelled();
  }
  state.finish();
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return run.record;
}
