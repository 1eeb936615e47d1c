/**
 * delegationWorkflow: one local parent task that owns one remote A2A task (or one direct reply).
 * Thin: it wires activities, Updates and cancellation to `DelegationState`, where the decisions live.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { BatonActivities, SendOutcome } from '../activities';
import type { Candidate } from '../src/acceptance/policies';
import { DelegationState, type NextStep, type QueuedTurn } from '../src/shared/delegation-state';
import {
  AnswerSchema,
  AuthorizeSchema,
  CancelSchema,
  ReviewSchema,
  type DelegationInput,
  type DelegationRecord,
  type Outcome,
  type ResolvedAgent,
} from '../src/shared/delegation-types';
import { isPermanentFailure, NON_RETRYABLE_FAILURES } from '../src/shared/failure-types';
import { turnMessageId } from '../src/shared/ids';
import {
  SA_AGENT,
  SA_OUTCOME,
  SA_PENDING_REQUEST,
  SA_REMOTE_STATE,
  SA_REMOTE_TASK_ID,
  SA_STATUS,
  SA_TENANT,
} from '../src/shared/search-attributes';
import {
  answerSignal,
  answerUpdate,
  authorizeSignal,
  authorizeUpdate,
  cancelUpdate,
  pushSignal,
  remoteTaskSignal,
  requestSignal,
  reviewUpdate,
  statusQuery,
} from './messages';

const retry = {
  initialInterval: '1s',
  maximumInterval: '30s',
  backoffCoefficient: 2,
  maximumAttempts: 8,
  nonRetryableErrorTypes: NON_RETRYABLE_FAILURES,
};

const quick = proxyActivities<BatonActivities>({ startToCloseTimeout: '30s', retry });

// 👉 Resolving the agent (a cached card, usually) and running the acceptance policy are short and
// local to this worker: as local activities they skip the task-queue round trip of a normal one.
const local = proxyLocalActivities<BatonActivities>({ startToCloseTimeout: '30s', retry });

// A send that outlives this is retried (after looking for the turn at the agent): short, so a worker
// that died mid-send is noticed soon.
const sending = proxyActivities<BatonActivities>({ startToCloseTimeout: '15s', retry });

// 👉 The wait on the remote task is one long activity: polls and heartbeats add nothing to history,
// and the heartbeat timeout is how a dead worker is noticed (and how a cancel reaches it).
const observe = proxyActivities<BatonActivities>({ startToCloseTimeout: '24h', heartbeatTimeout: '10s', retry });

/** Turns an activity failure into an ERROR outcome; anything else (cancellation, bugs) is rethrown. */
function errorOutcome(err: unknown): Outcome {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    const cause = err.cause;
    const permanent = cause.nonRetryable || isPermanentFailure(cause.type);
    const prefix = permanent ? (cause.type ?? 'Error') : `${cause.type ?? 'Error'} (gave up after ${retry.maximumAttempts} attempts)`;
    return { kind: 'ERROR', reasons: [`${prefix}: ${cause.message}`] };
  }
  if (err instanceof ActivityFailure) {
    return { kind: 'ERROR', reasons: [`${err.cause?.name ?? 'ActivityFailure'}: ${err.cause?.message ?? err.message}`] };
  }
  // A local activity's failure arrives unwrapped; so does one this workflow raises about the agent.
  if (err instanceof ApplicationFailure) return { kind: 'ERROR', reasons: [`${err.type ?? 'Error'}: ${err.message}`] };
  throw err;
}

/** Validators run synchronously before an Update is accepted; a throw refuses it without history. */
function refuse(reason: string | undefined): void {
  if (reason) throw ApplicationFailure.nonRetryable(reason, 'Refused');
}

export async function delegationWorkflow(input: DelegationInput): Promise<DelegationRecord> {
  const id = workflowInfo().workflowId;
  const state = new DelegationState(id, input);
  let agent: ResolvedAgent | undefined;
  let turns = 0;
  // Everything that talks to the agent runs in this scope, so a cancel can stop it mid-call.
  const work = new CancellationScope();

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
    // null removes the attribute once nothing is pending.
    pairs.push({ key: SA_PENDING_REQUEST, value: r.pending ? r.pending.requestId : null });
    upsertSearchAttributes(pairs);
  };

  setHandler(statusQuery, () => state.record);

  /** Queues a validated answer and resolves once it went out to the agent as a turn. */
  const deliver = async (turn: QueuedTurn): Promise<{ messageId: string }> => {
    state.queue(turn);
    await condition(() => state.sentAs(turn.requestId) !== undefined || state.status === 'SETTLED');
    return { messageId: state.sentAs(turn.requestId) ?? '' };
  };

  setHandler(answerUpdate, (a) => deliver({ requestId: a.requestId, kind: 'input', parts: a.parts }), {
    validator: (a) => {
      const parsed = AnswerSchema.safeParse(a);
      refuse(parsed.success ? state.refuseAnswer('input', a.requestId, a.caller) : `invalid answer: ${parsed.error.issues[0]?.message}`);
    },
  });

  setHandler(authorizeUpdate, (a) => deliver({ requestId: a.requestId, kind: 'auth', secretEnv: a.secretRef.fromEnv }), {
    validator: (a) => {
      const parsed = AuthorizeSchema.safeParse(a);
      refuse(parsed.success ? state.refuseAnswer('auth', a.requestId, a.caller) : `invalid authorize: ${parsed.error.issues[0]?.message}`);
    },
  });

  // Signals carry the Updates' payloads for senders that cannot update (other workflows). A Signal
  // cannot be refused before it enters history, so a refused one is recorded instead of dropped.
  const refusedSignal = (signal: 'answer' | 'authorize', payload: unknown, reason: string): void => {
    const entry = state.refusedSignal(signal, payload, reason);
    log.warn('refused a signal', { delegationId: id, ...entry });
    publish();
  };
  setHandler(answerSignal, (a) => {
    const parsed = AnswerSchema.safeParse(a);
    if (!parsed.success) return refusedSignal('answer', a, `invalid answer: ${parsed.error.issues[0]?.message}`);
    const why = state.refuseAnswer('input', parsed.data.requestId, parsed.data.caller);
    if (why) return refusedSignal('answer', a, why);
    state.queue({ requestId: parsed.data.requestId, kind: 'input', parts: parsed.data.parts });
  });
  setHandler(authorizeSignal, (a) => {
    const parsed = AuthorizeSchema.safeParse(a);
    if (!parsed.success) return refusedSignal('authorize', a, `invalid authorize: ${parsed.error.issues[0]?.message}`);
    const why = state.refuseAnswer('auth', parsed.data.requestId, parsed.data.caller);
    if (why) return refusedSignal('authorize', a, why);
    state.queue({ requestId: parsed.data.requestId, kind: 'auth', secretEnv: parsed.data.secretRef.fromEnv });
  });

  // Pushes only say "look again": the webhook verified the token for this delegation and task.
  let pushes = 0;
  let pushesRead = 0;
  let pushRegistered = false;
  setHandler(pushSignal, (p) => {
    if (typeof p?.taskId === 'string' && p.taskId === state.record.remote.taskId) pushes += 1;
  });

  /** Signals the `notify` workflow; a failure to reach it is noted, never fatal to the delegation. */
  const tell = async (send: (target: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>, about: string): Promise<void> => {
    if (!input.notify) return;
    try {
      await send(getExternalWorkflowHandle(input.notify.workflowId));
    } catch (err) {
      state.note(`could not tell workflow ${input.notify.workflowId} about ${about}: ${(err as Error).message}`);
    }
  };

  /** Tells the `notify` workflow what the delegation now waits for (unless it asked not to be told). */
  const announce = async (): Promise<void> => {
    const request = state.record.pending;
    if (input.notify?.requests === false || !request) return;
    await tell((target) => target.signal(requestSignal, { delegationId: id, agent: input.agent, request }), request.requestId);
  };

  /** Tells the `notify` workflow, when it asked, which remote task and context the agent chose. */
  const announceRemote = async (): Promise<void> => {
    if (!input.notify?.remoteTask) return;
    const { taskId, contextId } = state.record.remote;
    await tell((target) => target.signal(remoteTaskSignal, { delegationId: id, agent: input.agent, taskId, contextId }), 'the remote task');
  };

  let review: { decision: 'accept' | 'reject'; by: string; reason?: string } | undefined;
  setHandler(
    reviewUpdate,
    async (r) => {
      review = { decision: r.decision, by: `${r.caller.tenant}/${r.caller.user}`, reason: r.reason };
      await condition(() => state.status === 'SETTLED');
      return state.record;
    },
    {
      validator: (r) => {
        const parsed = ReviewSchema.safeParse(r);
        refuse(
          parsed.success
            ? (state.refuseAnswer('review', r.requestId, r.caller) ?? (review ? 'already reviewed' : undefined))
            : `invalid review: ${parsed.error.issues[0]?.message}`,
        );
      },
    },
  );

  /** Runs the policy; an accepted result the policy marks for review waits for a person. */
  const accept = async (policy: string, candidate: Omit<Candidate, 'request'>): Promise<void> => {
    const decision = await local.evaluateAcceptance({ delegationId: id, policy, candidate: { ...candidate, request: input.parts } });
    if (!decision.accepted || !decision.review) {
      state.decided(decision.accepted, decision.reasons);
      return;
    }
    state.awaitReview(decision.reasons);
    publish();
    await announce();
    // 👉 Like an answer, a review is waited for without holding any activity slot.
    await condition(() => review !== undefined);
    const r = review as NonNullable<typeof review>;
    state.reviewed(r.decision, r.by, r.reason);
  };

  setHandler(
    cancelUpdate,
    async (req) => {
      if (state.requestCancel(`${req.caller.tenant}/${req.caller.user}`, req.reason ?? `cancelled by ${req.caller.user}`)) work.cancel();
      await condition(() => state.status === 'SETTLED');
      return state.record;
    },
    {
      validator: (req) => {
        const parsed = CancelSchema.safeParse(req);
        refuse(
          parsed.success
            ? (state.refuseCaller(req.caller) ?? (state.status === 'SETTLED' ? 'the delegation has already settled' : undefined))
            : `invalid cancel: ${parsed.error.issues[0]?.message}`,
        );
      },
    },
  );

  // Started with its attributes set (startingAttributes): nothing to upsert until something changes.
  if (workflowInfo().typedSearchAttributes.get(SA_STATUS) !== 'STARTING') publish();

  /** Ends the delegation in ERROR for a broken contract, through the same cancel path as a caller's. */
  const breakContract = (reason: string): void => {
    if (state.requestCancel('contract', reason)) state.cancelKind = 'ERROR';
    work.cancel();
  };
  const budgetUsed = (): string => `remote call budget of ${state.record.contract?.maxRemoteCalls} used up (contract maxRemoteCalls)`;

  /** Sends one turn and records it; the first creates the remote task. */
  const send = async (resolved: ResolvedAgent, queued?: ReturnType<DelegationState['takeQueued']>): Promise<SendOutcome> => {
    turns += 1;
    const messageId = turnMessageId(id, turns);
    const remote = state.record.remote;
    const onTask = remote.taskId && remote.contextId ? { taskId: remote.taskId, contextId: remote.contextId } : {};
    // 👉 A send in flight is not cancelled: a cancel waits for it (its retries too), so a task it
    // created is known and gets its CancelTask instead of being left running at the agent.
    const sent = await CancellationScope.nonCancellable(() =>
      queued?.kind === 'auth'
        ? sending.sendAuthTurn({ delegationId: id, agent: resolved, turn: { messageId, ...onTask }, secretEnv: queued.secretEnv })
        : sending.sendTurn({
            delegationId: id,
            agent: resolved,
            turn: queued
              ? { messageId, parts: queued.parts, ...onTask }
              : { messageId, parts: input.parts, contextId: input.contextId, referenceTaskIds: input.referenceTaskIds },
            // An agent that finishes at once is then done in this one activity (agents.X.settleWithinMs).
            settle: { callBudget: Math.min(state.callBudget, 1_000) },
          }),
    );
    if (queued) state.answered(queued.requestId, messageId, sent.sentAt);
    else state.turnSent(messageId, sent.sentAt);
    if (sent.reconciliation) state.reconciled(messageId, sent.reconciliation);
    if (state.countCalls(sent.calls)) breakContract(budgetUsed());
    return sent;
  };

  /**
   * Push mode: register the webhook once, then read the task whenever a push arrives or the backstop
   * timer fires. 👉 Waiting here is a condition, not an activity: no slot is held while the agent works.
   */
  const awaitPush = async (resolved: ResolvedAgent, taskId: string) => {
    if (!pushRegistered) {
      const registered = await quick.registerPush({ delegationId: id, agent: resolved, taskId });
      state.countCalls(registered.calls);
      pushRegistered = true;
    } else {
      await condition(() => pushes > pushesRead, resolved.backstopPoll ?? '5m');
    }
    // Pushes that arrive while this read runs are read again: none is lost between read and wait.
    const upTo = pushes;
    const seen = await quick.readTask({ delegationId: id, agent: resolved, taskId });
    pushesRead = upTo;
    return seen;
  };

  /** Resolve, send, observe, route answers, accept. Returns once the delegation has an outcome. */
  const run = async (): Promise<void> => {
    agent = (await local.resolveAgent({ delegationId: id, agent: input.agent })).agent;
    const policy = state.resolved(agent);
    state.countCalls(1); // the card
    const deadline = state.record.contract?.deadline;
    if (deadline) {
      // A durable timer: it survives worker restarts, and firing it cancels the work like a caller would.
      sleep(deadline).then(
        () => {
          if (state.requestCancel('deadline', `deadline of ${deadline} passed`)) {
            state.cancelKind = 'TIMED_OUT';
            work.cancel();
          }
        },
        () => {}, // the work ended first and took the timer with it
      );
    }
    let sent = await send(agent);
    if (sent.kind === 'message') {
      state.replied(sent.reply);
      await announceRemote();
      await accept(policy, { artifacts: [], reply: { parts: sent.reply.parts } });
      return;
    }
    const taskId = sent.snapshot.taskId;
    let next: NextStep = state.observed(sent.snapshot);
    // A task that settled within the send is published once, with its outcome, at the end.
    if (next.kind === 'observe' || next.kind === 'interrupted') publish();
    await announceRemote();
    for (;;) {
      while (next.kind === 'observe') {
        const budget = state.callBudget;
        const seen =
          agent.observe === 'push'
            ? await awaitPush(agent, taskId)
            : await observe.awaitRemoteTask({
                delegationId: id,
                agent,
                taskId,
                staleStatusKey: state.staleStatusKey,
                callBudget: Number.isFinite(budget) ? budget : undefined,
              });
        const over = state.countCalls(seen.calls ?? 0);
        next = state.observed(seen);
        publish();
        if (seen.budgetExhausted || (over && next.kind === 'observe')) breakContract(budgetUsed());
      }
      if (next.kind !== 'interrupted') break;
      if (state.overInputRounds)
        breakContract(`the agent asked for input more than ${state.record.contract?.maxInputRounds} time(s) (contract maxInputRounds)`);
      else await announce();
      // 👉 Waiting for a person holds no activity slot: only this condition, until an Update queues an answer.
      await condition(() => state.hasQueued);
      sent = await send(agent, state.takeQueued());
      if (sent.kind === 'message')
        throw ApplicationFailure.nonRetryable('agent answered a turn on a task with a direct Message', 'InvalidAgentResponse');
      next = state.observed(sent.snapshot);
      publish();
    }
    if (next.kind === 'accept') {
      await accept(policy, { artifacts: state.record.artifacts });
    } else if (next.kind === 'end') {
      state.settle(next.outcome);
    }
  };

  try {
    await work.run(run);
  } catch (err) {
    // A send that failed after a cancel was asked for (it ran on, see send()) still ends as cancelled.
    if (!isCancellation(err) && !state.record.cancel) {
      state.settle(errorOutcome(err));
    } else {
      if (!isCancellation(err)) state.note(`the send in flight when the cancel came failed: ${errorOutcome(err).reasons[0] ?? 'unknown'}`);
      // Cancelled by a caller (Update) or by cancelling the workflow itself (e.g. a parent's cancel).
      state.requestCancel('temporal', 'the workflow was cancelled');
      publish();
      await CancellationScope.nonCancellable(async () => {
        const taskId = state.record.remote.taskId;
        const settled =
          state.record.remote.state &&
          ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'].includes(state.record.remote.state);
        if (!agent || !taskId || settled) {
          state.cancelled();
          return;
        }
        try {
          const final = await quick.cancelRemoteTask({ delegationId: id, agent, taskId });
          state.countCalls(final.calls ?? 0);
          state.cancelled(undefined, final);
        } catch (cancelErr) {
          const why = errorOutcome(cancelErr).reasons[0] ?? 'unknown';
          state.cancelled();
          state.record.outcome?.reasons.push(`remote cancel could not be requested: ${why}`);
        }
      });
    }
  }
  publish();
  // When the workflow itself was cancelled (a parent's cancel), a plain wait here would throw and
  // end it as Cancelled without its record; the caller needs the record with the real remote end.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return state.record;
}
