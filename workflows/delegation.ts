/**
 * delegationWorkflow: one local parent task that owns one remote A2A task (or one direct reply).
 * Thin: it wires activities to `DelegationState`, where the decisions live.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { BatonActivities } from '../activities';
import { DelegationState } from '../src/shared/delegation-state';
import type { DelegationInput, DelegationRecord, Outcome } from '../src/shared/delegation-types';
import { isPermanentFailure, NON_RETRYABLE_FAILURES } from '../src/shared/failure-types';
import { turnMessageId } from '../src/shared/ids';
import { SA_AGENT, SA_OUTCOME, SA_REMOTE_STATE, SA_REMOTE_TASK_ID, SA_STATUS, SA_TENANT } from '../src/shared/search-attributes';
import { statusQuery } from './messages';

const retry = {
  initialInterval: '1s',
  maximumInterval: '30s',
  backoffCoefficient: 2,
  maximumAttempts: 8,
  nonRetryableErrorTypes: NON_RETRYABLE_FAILURES,
};

const quick = proxyActivities<BatonActivities>({ startToCloseTimeout: '30s', retry });

// 👉 The wait on the remote task is one long activity: polls and heartbeats add nothing to history,
// and the heartbeat timeout is how a dead worker is noticed.
const observe = proxyActivities<BatonActivities>({ startToCloseTimeout: '24h', heartbeatTimeout: '30s', retry });

/** Turns an activity failure into an ERROR outcome; anything else (cancellation, bugs) is rethrown. */
function errorOutcome(err: unknown): Outcome {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    const cause = err.cause;
    const permanent = cause.nonRetryable || isPermanentFailure(cause.type);
    const prefix = permanent ? cause.type ?? 'Error' : `${cause.type ?? 'Error'} (gave up after ${retry.maximumAttempts} attempts)`;
    return { kind: 'ERROR', reasons: [`${prefix}: ${cause.message}`] };
  }
  if (err instanceof ActivityFailure) {
    return { kind: 'ERROR', reasons: [`${err.cause?.name ?? 'ActivityFailure'}: ${err.cause?.message ?? err.message}`] };
  }
  throw err;
}

export async function delegationWorkflow(input: DelegationInput): Promise<DelegationRecord> {
  const id = workflowInfo().workflowId;
  const state = new DelegationState(id, input);
  setHandler(statusQuery, () => state.record);

  const publish = (): void => {
    const r = state.record;
    const pairs: SearchAttributeUpdatePair[] = [
      { key: SA_STATUS, value: r.status },
      { key: SA_AGENT, value: r.agent.name },
      { key: SA_TENANT, value: r.tenant },
    ];
    if (r.remote.taskId) pairs.push({ key: SA_REMOTE_TASK_ID, value: r.remote.taskId });
    if (r.remote.state) pairs.push({ key: SA_REMOTE_STATE, value: r.remote.state });
    if (r.outcome) pairs.push({ key: SA_OUTCOME, value: r.outcome.kind });
    upsertSearchAttributes(pairs);
  };
  publish();

  try {
    // The card snapshot stays in this activity's result in history (audit); only the small part travels on.
    const { agent } = await quick.resolveAgent({ delegationId: id, agent: input.agent });
    const policy = state.resolved(agent);

    const messageId = turnMessageId(id, 1);
    const sent = await quick.sendTurn({
      delegationId: id,
      agent,
      turn: { messageId, parts: input.parts, contextId: input.contextId, referenceTaskIds: input.referenceTaskIds },
    });
    state.turnSent(messageId, sent.sentAt);

    if (sent.kind === 'message') {
      state.replied(sent.reply);
      const decision = await quick.evaluateAcceptance({ delegationId: id, policy, candidate: { artifacts: [], reply: { parts: sent.reply.parts } } });
      state.decided(decision.accepted, decision.reasons);
    } else {
      let next = state.observed(sent.snapshot);
      publish();
      while (next.kind === 'observe') {
        next = state.observed(await observe.awaitRemoteTask({ delegationId: id, agent, taskId: sent.snapshot.taskId }));
        publish();
      }
      if (next.kind === 'accept') {
        const decision = await quick.evaluateAcceptance({ delegationId: id, policy, candidate: { artifacts: state.record.artifacts } });
        state.decided(decision.accepted, decision.reasons);
      } else if (next.kind === 'end') {
        state.settle(next.outcome);
      } else {
        state.settle({
          kind: 'ERROR',
          reasons: [`the agent asked for ${state.record.remote.state === 'TASK_STATE_AUTH_REQUIRED' ? 'authentication' : 'input'}; answering interrupted tasks is not supported yet`],
        });
      }
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    state.settle(errorOutcome(err));
  }
  publish();
  return state.record;
}
