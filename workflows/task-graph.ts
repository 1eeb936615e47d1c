/**
 * taskGraphWorkflow: a DAG of delegations. Each node is a `delegationWorkflow` with id
 * `<graphId>/<nodeId>`, started in batches by an activity and heard of by Signal (decision 0042).
 * Handlers first, then the loop; the steps are `GraphRun`'s, the decisions `GraphState`'s.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { graphProblems, normalizeNode } from '../src/shared/graph-spec';
import type { GraphCarry } from '../src/shared/graph-carry';
import type { GraphInput, GraphRecord } from '../src/shared/graph-types';
import { GraphRun } from './graph-run';
import { addFollowUpUpdate, cancelGraphUpdate, graphStatusQuery, remoteTaskSignal, settledSignal } from './messages';
import { refuse } from './refusal';

/** A spec the graph cannot run: the caller's to fix (the client checks the same before starting). */
function invalidSpec(problems: string[]): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`the graph spec is not valid: ${problems.join('; ')}`, 'InvalidRequest');
}

export async function taskGraphWorkflow(input: GraphInput, carried?: GraphCarry): Promise<GraphRecord> {
  const problems = carried ? [] : graphProblems(input.spec.nodes.map(normalizeNode));
  if (problems.length) throw invalidSpec(problems);
  const run = new GraphRun(workflowInfo().workflowId, input, carried);
  const { state } = run;

  setHandler(graphStatusQuery, (page) => state.page(page));
  setHandler(remoteTaskSignal, (notice) => run.remoteKnown(notice));
  setHandler(settledSignal, (result) => run.settled(result));
  setHandler(addFollowUpUpdate, (f) => run.addFollowUp(f), { validator: (f) => refuse(state.refuseFollowUpPayload(f)) });
  setHandler(cancelGraphUpdate, (c) => run.cancel(c), { validator: (c) => refuse(state.refuseCancel(c)) });

  // A continued run checked its names in the first run.
  const unknown = carried ? [] : await run.unknownNames(input.spec.nodes);
  if (unknown.length) throw invalidSpec(unknown);
  void run.watchCarried();
  let carry: GraphCarry | undefined;
  try {
    while (!state.done && !carry) carry = await run.advance();
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await run.cancelled();
  }
  // A large graph goes on in a new run before its history gets large (worker.continueAsNewAfterEvents).
  if (carry) return continueAsNew<typeof taskGraphWorkflow>(input, carry);
  state.finish();
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return run.record;
}
