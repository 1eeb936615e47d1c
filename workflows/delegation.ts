/**
 * delegationWorkflow: one local parent task that owns one remote A2A task (or one direct reply).
 * Handlers first, then the story; the steps are `DelegationRun`'s, the decisions `DelegationState`'s.
 */
import { allHandlersFinished, CancellationScope, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DelegationCarry } from '../src/shared/delegation-carry';
import type { DelegationInput, DelegationRecord } from '../src/shared/delegation-types';
import type { QueuedTurn } from '../src/shared/delegation-state';
import { SA_STATUS } from '../src/shared/search-attributes';
import { DelegationRun, type Step } from './delegation-run';
import { refuse } from './refusal';
import { delegationSettled, delegationStarted } from './telemetry';
import {
  answerSignal,
  answerUpdate,
  authorizeSignal,
  authorizeUpdate,
  cancelUpdate,
  pushSignal,
  reviewUpdate,
  statusQuery,
} from './messages';

/**
 * `carried`: set only by the delegation itself when it continues as new, with what the new run needs
 * to go on where the last one stopped.
 */
export async function delegationWorkflow(input: DelegationInput, carried?: DelegationCarry): Promise<DelegationRecord> {
  const run = new DelegationRun(workflowInfo().workflowId, input, carried);
  const { state } = run;
  /** The turn an answer or authorization asks for; refused when `state` says no. */
  const admitted = (kind: 'input' | 'auth', payload: unknown): QueuedTurn => {
    const result = state.admit(kind, payload);
    refuse('refused' in result ? result.refused : undefined);
    return (result as { turn: QueuedTurn }).turn;
  };

  setHandler(statusQuery, () => run.record);
  setHandler(answerUpdate, (a) => run.deliver(admitted('input', a)), { validator: (a) => void admitted('input', a) });
  setHandler(authorizeUpdate, (a) => run.deliver(admitted('auth', a)), { validator: (a) => void admitted('auth', a) });
  setHandler(reviewUpdate, (r) => run.review(r), { validator: (r) => refuse(state.refuseReview(r)) });
  setHandler(cancelUpdate, (c) => run.cancel(c), { validator: (c) => refuse(state.refuseCancel(c)) });
  setHandler(answerSignal, (a) => run.signalled('answer', a));
  setHandler(authorizeSignal, (a) => run.signalled('authorize', a));
  setHandler(pushSignal, (p) => run.pushed(p));

  // Started with its attributes set (startingAttributes), or continued with them: nothing to upsert
  // until something changes.
  if (!carried && workflowInfo().typedSearchAttributes.get(SA_STATUS) !== 'STARTING') run.publish();
  if (!carried) delegationStarted(input.agent);

  let carry: DelegationCarry | undefined;
  try {
    carry = await run.work.run(async () => {
      let next: Step = carried ? run.resume(carried) : await run.begin();
      while (next.kind !== 'settled') {
        // A long wait goes on in a new run before its history gets large (worker.continueAsNewAfterEvents).
        const carry = run.carryAt(next);
        if (carry) return carry;
        next = await run.step(next);
      }
      return undefined;
    });
  } catch (err) {
    await run.stopped(err);
  }
  if (carry) return continueAsNew<typeof delegationWorkflow>(input, carry);
  run.publish();
  // When the workflow itself was cancelled (a parent's cancel), a plain wait here would throw and
  // end it as Cancelled without its record; the caller needs the record with the real remote end.
  if (!allHandlersFinished()) await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  await run.announceSettled();
  delegationSettled(input.agent, run.record.outcome?.kind);
  return run.record;
}
