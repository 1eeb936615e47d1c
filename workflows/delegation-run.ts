/**
 * The async steps of one delegation, and the state they share. `delegationWorkflow` registers the
 * handlers and tells the story; this class talks to activities, timers and other workflows;
 * `DelegationState` makes every decision.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  deprecatePatch,
  log,
  patched,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { decide, needsNotice, type AcceptanceRule, type Candidate, type Decision } from '../src/shared/acceptance-rule';
import {
  DelegationState,
  FIRST_TASK_SEND_MS,
  saidIn,
  type CancelKind,
  type NextStep,
  type QueuedTurn,
  type RunFacts,
} from '../src/shared/delegation-state';
import type { DelegationCarry } from '../src/shared/delegation-carry';
import type {
  CancelRequest,
  DelegationInput,
  DelegationRecord,
  RemoteSnapshot,
  ResolvedAgent,
  Review,
} from '../src/shared/delegation-types';
import { isPermanent, outcomeOfFailure } from '../src/shared/failure-outcome';
import { isTerminal } from '../src/shared/remote-state';
import type { SendOutcome } from '../src/shared/send-outcome';
import type { Resolved } from '../activities/agents';
import type { FirstSend } from '../activities/send';
import { changedAttributes, searchAttributesOf } from '../src/shared/search-attributes';
import { startedInWindow } from './refusal';
import { inFirstTask, local, observing, quick, RETRY, sending, sparseReads, telling } from './activity-stubs';
import { remoteTaskSignal, requestSignal, settledSignal } from './messages';
import { resultOf, settledNotice } from '../src/shared/delegation-result';

/** Reads at most this many times in the read-after-send window, whatever the budget. */
const MAX_READS_AFTER_SEND = 1_000;

/** A first workflow task longer than this (started, scheduled, started) follows one that failed or timed out. */
const FIRST_TASK_HISTORY_LENGTH = 3;

/** The first send in the workflow task follows the task this long at most (half the local activity's time). */
const FIRST_TASK_WINDOW_MS = FIRST_TASK_SEND_MS / 2;

/*
 * Patches from before the support window (docs/decisions/0033-support-window.md). Every history a
 * 0.9.0 worker wrote took their new branch, so the old ones are gone; `deprecatePatch` still writes
 * and accepts the marker, for 0.9.0 workers in a rolling upgrade. Removed in the release after 1.0.
 */
/** The first send runs in the first workflow task. */
export const SEND_IN_FIRST_TASK = 'send-in-first-task';
/** A delegation with a long history continues as new. */
export const CONTINUE_AS_NEW = 'continue-as-new';
/** Search attributes are written only when they change. */
export const PUBLISH_ON_CHANGE = 'publish-on-change';

/*
 * Patches of 1.0. Delegations that a worker without them started keep their branch as far as their
 * history goes; the rest of their life takes the new one.
 */
/**
 * Reads Baton paces itself (a push delegation's backstop reads, sparse reads) are budgeted by time,
 * the contract's `maxWait`, and no longer count against `maxRemoteCalls` (decision 0036).
 */
export const PACED_READS_BY_TIME = 'paced-reads-by-time';

/** A step of the delegation: what an observation says comes next, a review to wait for, or the end. */
export type Step = NextStep | { kind: 'review' } | { kind: 'settled' };

const SETTLED: Step = { kind: 'settled' };

export class DelegationRun {
  readonly state: DelegationState;
  /** Everything that talks to the agent runs in this scope, so a cancel can stop it mid-call. */
  readonly work = new CancellationScope();
  /** The search attributes this run last wrote (`publish`), as JSON. */
  private published?: string;

  constructor(
    readonly id: string,
    private readonly input: DelegationInput,
    carried?: DelegationCarry,
  ) {
    const startedBy = startedInWindow('delegation');
    // Taken here, before any handler runs: a push signalled to the new run adds to the carried ones.
    this.state = carried ? DelegationState.resumed(input, carried) : new DelegationState(id, input, startedBy);
  }

  /** What this run goes on with (and carries to the next): the agent, its rule, pushes, the deadline. */
  private get run(): RunFacts {
    return this.state.run;
  }

  get record(): DelegationRecord {
    return this.state.record;
  }

  /**
   * Shows the record's status, outcome and pending request in the search attributes. Only a change is
   * written: a push delegation's backstop read every 5 minutes would otherwise cost an event and a
   * visibility write each time. 👉 Whether to write is decided as before (the commands must replay);
   * what is written is only the attributes that changed, which replay does not compare.
   */
  publish(): void {
    const pairs = searchAttributesOf(this.record);
    const shown = JSON.stringify(pairs);
    if (shown === this.published) {
      deprecatePatch(PUBLISH_ON_CHANGE);
      return;
    }
    this.published = shown;
    upsertSearchAttributes(changedAttributes(pairs, workflowInfo().typedSearchAttributes));
  }

  // ── Handlers ────────────────────────────────────────────────────────────────────────────────────

  /** Update `answer` / `authorize`: queues the admitted turn and resolves once it went out to the agent. */
  async deliver(turn: QueuedTurn): Promise<{ messageId: string }> {
    this.state.queue(turn);
    await condition(() => this.state.sentAs(turn.requestId) !== undefined || this.state.status === 'SETTLED');
    return { messageId: this.state.sentAs(turn.requestId) ?? '' };
  }

  /**
   * Signal `answerSignal` / `authorizeSignal`: the Updates' payloads from senders that cannot update
   * (other workflows). A Signal cannot be refused before it enters history, so a refused one is recorded.
   */
  signalled(signal: 'answer' | 'authorize', payload: unknown): void {
    const admitted = this.state.admit(signal === 'answer' ? 'input' : 'auth', payload);
    if ('turn' in admitted) return this.state.queue(admitted.turn);
    const entry = this.state.refusedSignal(signal, payload, admitted.refused);
    log.warn('refused a signal', { delegationId: this.id, ...entry });
    this.publish();
  }

  /** Signal `batonPush`: the webhook verified a push for this delegation. Only a hint to read the task again. */
  pushed(notice: { taskId?: unknown } | undefined): void {
    if (typeof notice?.taskId === 'string' && notice.taskId === this.record.remote.taskId) this.run.push.received += 1;
  }

  /** Update `review`: keeps the decision, resolves with the settled record. */
  async review(r: Review): Promise<DelegationRecord> {
    this.state.reviewGiven({ decision: r.decision, by: `${r.caller.tenant}/${r.caller.user}`, reason: r.reason });
    await condition(() => this.state.status === 'SETTLED');
    return this.record;
  }

  /** Update `cancel`: stops the work; the cleanup cancels the remote task. Resolves with the settled record. */
  async cancel(req: CancelRequest): Promise<DelegationRecord> {
    this.stop(`${req.caller.tenant}/${req.caller.user}`, req.reason ?? `cancelled by ${req.caller.user}`);
    await condition(() => this.state.status === 'SETTLED');
    return this.record;
  }

  // ── Steps ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * Resolves the agent and sends the first turn, which creates the remote task (or gets a direct
   * reply): one activity, in this workflow task when it can be (see `sendInFirstTask`).
   */
  async begin(): Promise<NextStep> {
    const { parts, contextId, referenceTaskIds, contract, inherited } = this.input;
    const first: FirstSend = {
      delegationId: this.id,
      ...this.resolveInput,
      turn: { messageId: this.state.nextMessageId(), parts, contextId, referenceTaskIds },
      ...(contract ? { contract } : {}),
      ...(inherited ? { inherited } : {}),
      maxReads: MAX_READS_AFTER_SEND,
    };
    const messageId = first.turn.messageId;
    // 👉 Not cancelled once sent, as every send (see send()).
    const sent = await CancellationScope.nonCancellable(() =>
      this.sendsInFirstTask ? this.sendInFirstTask(first) : sending.resolveAndSend(first),
    );
    this.resolved(sent.resolved, workflowInfo().runStartTime.getTime());
    this.sent(undefined, messageId, sent);
    return this.firstTurnSent(sent);
  }

  /**
   * Whether the first send runs inside this workflow task: the local activity is over before the SDK
   * would heartbeat the task (see `inFirstTask`); a shorter task timeout sends from the task queue.
   */
  private get sendsInFirstTask(): boolean {
    if (!this.state.sendsInFirstTask(workflowInfo().taskTimeoutMs)) return false;
    deprecatePatch(SEND_IN_FIRST_TASK);
    return true;
  }

  /**
   * The first send as a local activity, with no task-queue round trip. 👉 A local activity that was lost
   * with its worker runs again at attempt 1, in a workflow task that follows the one that timed out: a
   * history longer than a first task's says the turn may have gone out already, and the send looks for
   * it first. An agent that cannot be asked, and a send that failed but may work when tried again,
   * go to the task-queue send (which looks first too).
   */
  private async sendInFirstTask(first: FirstSend): Promise<SendOutcome & { resolved: Resolved }> {
    const info = workflowInfo();
    const since = { since: info.runStartTime.getTime() };
    const mayHaveSent = info.historyLength > FIRST_TASK_HISTORY_LENGTH ? { mayHaveSent: since } : {};
    let sent: Awaited<ReturnType<typeof inFirstTask.resolveAndSendHere>>;
    try {
      sent = await inFirstTask.resolveAndSendHere({ ...first, ...mayHaveSent, windowMaxMs: FIRST_TASK_WINDOW_MS });
    } catch (err) {
      if (isPermanent(err)) throw err;
      return sending.resolveAndSend({ ...first, mayHaveSent: since });
    }
    return 'notSent' in sent ? sending.resolveAndSend({ ...first, ...mayHaveSent }) : sent;
  }

  /** What the resolve is asked: the agent, for this tenant, under the policy the delegation names. */
  private get resolveInput(): { agent: string; tenant?: string; policy?: string } {
    const { agent, tenant, policy } = this.input;
    return { agent, ...(tenant ? { tenant } : {}), ...(policy ? { policy } : {}) };
  }

  /**
   * Keeps what the resolve found and starts the deadline's timer: from `since` (the start, when the
   * resolve came with the first send), else from now.
   */
  private resolved(
    resolved: { agent: ResolvedAgent; acceptance?: AcceptanceRule; continueAsNewAfterEvents?: number },
    since: number,
  ): void {
    const deadline = this.state.resolved(resolved, since, Date.now());
    if (deadline) this.startDeadline(deadline.wait);
  }

  /** A durable timer: it survives worker restarts, and firing it cancels the work like a caller would. */
  private startDeadline(wait: string | number): void {
    const deadline = this.record.contract?.deadline;
    sleep(wait).then(
      () => this.stop('deadline', `deadline of ${deadline} passed`, 'TIMED_OUT'),
      () => {}, // the work ended first and took the timer with it
    );
  }

  // ── Continue-as-new ─────────────────────────────────────────────────────────────────────────────

  /** Takes up where the run before this one stopped (the constructor took its state): the deadline and the step. */
  resume(carried: DelegationCarry): Step {
    if (this.run.deadlineAt !== undefined) this.startDeadline(Math.max(1, this.run.deadlineAt - Date.now()));
    return { kind: carried.at };
  }

  /** Whether this run's history is long enough to go on in a new run (the server's hint, or the threshold). */
  private get historyFull(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.run.afterEvents;
  }

  /** A wait may stop for a continue-as-new: the history is full and no handler is still running. */
  private get mayCarry(): boolean {
    return this.historyFull && allHandlersFinished();
  }

  /**
   * What the next run needs, when this one should continue as new before taking step `next`: its
   * history is full, no handler is running, and nothing is half done (an answer, a review, a cancel).
   */
  carryAt(next: Step): DelegationCarry | undefined {
    if (next.kind !== 'observe' && next.kind !== 'interrupted' && next.kind !== 'review') return undefined;
    if (!this.mayCarry) return undefined;
    const carry = this.state.carryAt(next.kind);
    if ('refused' in carry) return undefined;
    deprecatePatch(CONTINUE_AS_NEW);
    log.info('continuing as new', { delegationId: this.id, events: workflowInfo().historyLength, runs: carry.carry.runs, step: next.kind });
    return carry.carry;
  }

  /**
   * What the first send's outcome means: a direct reply, or the task as it was then. Synchronous unless
   * the `notify` workflow asked to be told of the remote task: every promise a workflow makes costs the
   * SDK a stack trace (its stack-trace query), and this runs for every delegation.
   */
  private firstTurnSent(sent: SendOutcome): NextStep | Promise<NextStep> {
    let next: NextStep;
    if (sent.kind === 'message') next = this.state.replied(sent.reply);
    else {
      next = this.observed(sent.snapshot);
      // A task that ended within the send is published once, with its outcome, at the end.
      if (next.kind === 'observe' || next.kind === 'interrupted') this.publish();
    }
    return this.input.notify?.remoteTask ? this.announceRemoteTask().then(() => next) : next;
  }

  /** Waits for the remote task to leave its active state: a stream or polls in one activity, or pushes. */
  async observe(): Promise<NextStep> {
    const agent = this.resolvedAgent;
    const taskId = this.record.remote.taskId ?? '';
    const how = this.state.howToObserve();
    // Reads at Baton's own pace are budgeted by time; `patched` keeps delegations that counted them
    // against the call budget on that branch for as far as their history goes.
    const byTime = how.kind !== 'poll' && patched(PACED_READS_BY_TIME);
    if (byTime) {
      const waitedLongest = this.state.refuseLongerWait(how, Date.now());
      if (waitedLongest) {
        this.stop('contract', waitedLongest, 'TIMED_OUT');
        await this.work.cancelRequested;
      }
    }
    const budget = this.state.callBudget;
    const input = {
      delegationId: this.id,
      agent,
      taskId,
      staleStatusKey: this.state.staleStatusKey,
      callBudget: Number.isFinite(budget) && !byTime ? budget : undefined,
      inlineSoFar: this.state.inlineSoFar,
    };
    let seen: RemoteSnapshot;
    let paced = false;
    if (how.kind === 'push') ({ seen, paced } = await this.awaitPush(agent, taskId, byTime));
    else if (how.kind === 'sparse') {
      const until = this.run.waitUntil;
      seen = await sparseReads(how.every, how.attemptSpan).readSparsely(
        byTime && until !== undefined ? { ...input, readUntil: until } : input,
      );
      paced = true;
    } else seen = await observing.awaitRemoteTask(input);
    if (byTime && paced) this.state.countPacedReads(seen.calls ?? 0);
    else this.state.countCalls(seen.calls ?? 0);
    const next = this.observed(seen);
    this.state.observedWith(how, next);
    this.publishUnlessSettling(next);
    return next;
  }

  /** Takes the step `next` names; returns the one after it. */
  async step(next: Step): Promise<Step> {
    switch (next.kind) {
      case 'observe':
        return this.observe();
      case 'interrupted':
        return this.answerInterruption();
      case 'accept':
        return this.accept();
      case 'review':
        return this.awaitReview();
      case 'end':
        this.state.settle(next.outcome);
        return SETTLED;
      case 'settled':
        return next;
    }
  }

  /**
   * The agent asked (input or auth): waits for a person's answer and sends it as the next turn. A
   * history that fills up meanwhile ends the wait here, to go on waiting in a new run.
   */
  async answerInterruption(): Promise<Step> {
    await this.announceRequest();
    // 👉 Waiting for a person holds no activity slot: only this condition, until an answer is queued.
    await condition(() => this.state.hasQueued || this.mayCarry);
    const queued = this.state.takeQueued();
    if (!queued) return { kind: 'interrupted' };
    const sent = await this.send(queued);
    if (sent.kind === 'message') {
      throw ApplicationFailure.nonRetryable('agent answered a turn on a task with a direct Message', 'InvalidAgentResponse');
    }
    const next = this.observed(sent.snapshot);
    this.publishUnlessSettling(next);
    return next;
  }

  /** Acceptance for a COMPLETED task or a direct reply: settles, or holds the result for a person's review. */
  async accept(): Promise<Step> {
    const reply = this.record.reply;
    const candidate: Candidate = {
      artifacts: this.record.artifacts,
      ...(reply ? { reply: { parts: reply.parts } } : {}),
      request: this.input.parts,
    };
    const decision: Decision = this.run.rule
      ? decide(this.run.rule, candidate)
      : await local.evaluateAcceptance({ delegationId: this.id, policy: this.run.policy, candidate });
    // Only what needs notice: a workflow's log line crosses to the worker's thread.
    if (this.run.rule && needsNotice(decision)) {
      log.info('acceptance decided', { delegationId: this.id, policy: this.run.policy, accepted: decision.accepted });
    }
    if (!decision.accepted || !decision.review) {
      this.state.decided(decision.accepted, decision.reasons);
      return SETTLED;
    }
    this.state.awaitReview(decision.reasons);
    this.publish();
    await this.announceRequest();
    return { kind: 'review' };
  }

  /** Waits for the review (or a full history, to go on waiting in a new run) and settles on it. */
  async awaitReview(): Promise<Step> {
    // 👉 Like an answer, a review is waited for without holding any activity slot.
    await condition(() => this.state.hasReview || this.mayCarry);
    if (!this.state.hasReview) return { kind: 'review' };
    this.state.decideOnReview();
    return SETTLED;
  }

  /**
   * After the work stopped with `err`: a failure becomes ERROR; a cancel (a caller's, the deadline's, the
   * contract's, or the workflow's own) cancels the remote task and records how it really ended.
   */
  async stopped(err: unknown): Promise<void> {
    // A send that failed after a cancel was asked for (it ran on, see send()) still ends as cancelled.
    if (!isCancellation(err) && !this.record.cancel) {
      this.state.settle(outcomeOfFailure(err, RETRY.maximumAttempts));
      return;
    }
    if (!isCancellation(err)) this.state.note(`the send in flight when the cancel came failed: ${this.failureReason(err)}`);
    // Cancelled by a caller (Update) or by cancelling the workflow itself (e.g. a parent's cancel).
    this.state.requestCancel('temporal', 'the workflow was cancelled');
    this.publish();
    await CancellationScope.nonCancellable(() => this.cancelRemoteTask());
  }

  // ── Helpers ─────────────────────────────────────────────────────────────────────────────────────

  private get resolvedAgent(): ResolvedAgent {
    if (!this.run.agent) throw ApplicationFailure.nonRetryable('the agent was not resolved', 'Internal');
    return this.run.agent;
  }

  /**
   * Publishes while the delegation goes on; one that settles next is published once, when it has. (A
   * delegation without a rule replays the steps it was recorded with: a publish here too.)
   */
  private publishUnlessSettling(next: NextStep): void {
    if (next.kind === 'observe' || next.kind === 'interrupted' || !this.run.rule) this.publish();
  }

  /** Asks for a cancel (unless one was asked for already) and stops the work. */
  private stop(by: string, reason: string, kind?: CancelKind): void {
    if (this.state.requestCancel(by, reason, kind)) this.work.cancel();
  }

  /** Records an observation; a broken contract (budget, input rounds) stops the work right away. */
  private observed(snapshot: RemoteSnapshot): NextStep {
    const next = this.state.observed(snapshot);
    const broken = this.state.refuseToGoOn(next);
    if (broken) this.stop('contract', broken, 'ERROR');
    return next;
  }

  /** Sends an admitted answer as the next turn and records it. */
  private async send(queued: QueuedTurn): Promise<SendOutcome> {
    const agent = this.resolvedAgent;
    const messageId = this.state.nextMessageId();
    const remote = this.record.remote;
    const onTask = remote.taskId && remote.contextId ? { taskId: remote.taskId, contextId: remote.contextId } : {};
    // 👉 A send in flight is not cancelled: a cancel waits for it (its retries too), so a task it
    // created is known and gets its CancelTask instead of being left running at the agent.
    const sent = await CancellationScope.nonCancellable(() =>
      queued.kind === 'auth'
        ? sending.sendAuthTurn({
            delegationId: this.id,
            agent,
            tenant: this.input.tenant,
            inlineSoFar: this.state.inlineSoFar,
            turn: { messageId, ...onTask },
            credential: queued.credential,
          })
        : sending.sendTurn({
            delegationId: this.id,
            agent,
            turn: { messageId, parts: queued.parts, ...onTask },
            // An agent that finishes at once is then done in this one activity (agents.X.readAfterSendMs).
            readAfterSend: { callBudget: Math.min(this.state.callBudget, MAX_READS_AFTER_SEND) },
            inlineSoFar: this.state.inlineSoFar,
          }),
    );
    this.sent(queued, messageId, sent);
    return sent;
  }

  /** Records a turn that went out: the first (`queued` undefined) or an answer. */
  private sent(queued: QueuedTurn | undefined, messageId: string, sent: SendOutcome): void {
    if (queued) this.state.answered(queued.requestId, messageId, sent.sentAt, saidIn(queued), queued.by);
    else this.state.turnSent(messageId, sent.sentAt, this.input.parts);
    if (sent.dataUse) this.state.turnDataUse(messageId, sent.dataUse);
    if (sent.reconciliation) this.state.reconciled(messageId, sent.reconciliation);
    this.state.countCalls(sent.calls);
  }

  /**
   * Push mode: registers the webhook once, then reads the task whenever a push arrives or the backstop
   * timer fires; `paced` says the read was the backstop's. 👉 Waiting here is a condition, not an
   * activity: no slot is held while the agent works. With `byTime`, the wait ends at the contract's
   * `maxWait` too, so the next observation can end the delegation on time.
   */
  private async awaitPush(agent: ResolvedAgent, taskId: string, byTime: boolean): Promise<{ seen: RemoteSnapshot; paced: boolean }> {
    let paced = false;
    if (!this.run.push.registered) {
      const registered = await quick.registerPush({ delegationId: this.id, agent, taskId });
      this.state.countCalls(registered.calls);
      this.run.push.registered = true;
    } else {
      paced = !(await condition(() => this.run.push.received > this.run.push.read, this.state.pushWait(byTime, Date.now())));
    }
    // Pushes that arrive while this read runs are read again: none is lost between read and wait.
    const upTo = this.run.push.received;
    const seen = await quick.readTask({ delegationId: this.id, agent, taskId, inlineSoFar: this.state.inlineSoFar });
    this.run.push.read = upTo;
    return { seen, paced };
  }

  /** Cancels the remote task, if there is one still running, and settles with what it really did. */
  private async cancelRemoteTask(): Promise<void> {
    const taskId = this.record.remote.taskId;
    const state = this.record.remote.state;
    if (!this.run.agent || !taskId || (state && isTerminal(state))) {
      this.state.cancelled();
      return;
    }
    try {
      const final = await quick.cancelRemoteTask({
        delegationId: this.id,
        agent: this.run.agent,
        taskId,
        inlineSoFar: this.state.inlineSoFar,
      });
      this.state.countCalls(final.calls ?? 0);
      this.state.cancelled(final);
    } catch (err) {
      this.state.cancelFailed(this.failureReason(err));
    }
  }

  private failureReason(err: unknown): string {
    return outcomeOfFailure(err, RETRY.maximumAttempts).reasons[0] ?? 'unknown';
  }

  /** Tells the `notify` workflow what the delegation now waits for (unless it asked not to be told). */
  private async announceRequest(): Promise<void> {
    const request = this.record.pending;
    if (this.input.notify?.requests === false || !request || request.requestId === this.run.announced) return;
    this.run.announced = request.requestId;
    await this.tell(
      (target) => target.signal(requestSignal, { delegationId: this.id, agent: this.input.agent, request }),
      request.requestId,
    );
  }

  /** Tells the `notify` workflow, when it asked, which remote task and context the agent chose. */
  private async announceRemoteTask(): Promise<void> {
    if (!this.input.notify?.remoteTask) return;
    const { taskId, contextId } = this.record.remote;
    await this.tell(
      (target) => target.signal(remoteTaskSignal, { delegationId: this.id, agent: this.input.agent, taskId, contextId }),
      'the remote task',
    );
  }

  /**
   * Tells the `notify` workflow, when it asked, how the delegation ended: a graph that continued as new
   * has no child result to await for the nodes an earlier run started. Sent even when cancelled.
   */
  async announceSettled(): Promise<void> {
    if (!this.input.notify?.settled) return;
    const notice = settledNotice(resultOf(this.record));
    const graphId = this.input.notify.workflowId;
    // The input says how (decision 0042): a patch would cost every node a marker and a visibility write.
    if (this.input.settledFromActivity) {
      // Bounded, so a busy graph cannot hold this workflow task: a Signal that did not go out in time
      // goes as a command instead (a second one that did go out is ignored by the graph).
      const told = await CancellationScope.nonCancellable(() => telling.tellSettled({ graphId, notice }).catch(() => undefined));
      if (told?.missed) this.state.note(`could not tell workflow ${graphId} about how it ended: ${told.missed}`);
      if (told) return;
    }
    await CancellationScope.nonCancellable(() => this.tell((target) => target.signal(settledSignal, notice), 'how it ended'));
  }

  /** Signals the `notify` workflow; a failure to reach it is noted, never fatal to the delegation. */
  private async tell(send: (target: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>, about: string): Promise<void> {
    if (!this.input.notify) return;
    try {
      await send(getExternalWorkflowHandle(this.input.notify.workflowId));
    } catch (err) {
      this.state.note(`could not tell workflow ${this.input.notify.workflowId} about ${about}: ${(err as Error).message}`);
    }
  }
}
