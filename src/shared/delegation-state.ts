/**
 * The delegation record and the events that change it. The workflow only wires activities, timers and
 * messages to these methods; every decision about what an event means is here, unit-tested without
 * Temporal. `refuseX()` methods answer "why not?" (a reason, or undefined when allowed).
 */
import { RECORD_VERSION } from './record-version';
import type { z } from 'zod';
import type { Part } from './a2a-types';
import type {
  Caller,
  DelegationInput,
  DelegationRecord,
  DelegationStatus,
  Outcome,
  PendingRequest,
  RefusedSignal,
  RemoteSnapshot,
  ResolvedAgent,
  Turn,
} from './delegation-types';
import { delegationSchemas } from './schemas-on-demand';
import { refuseAnswerData } from './data-use';
import { turnMessageId } from './ids';
import { inlineBytesOf, replyBytesOf } from './inline-bytes';
import { isTerminal, outcomeOfRemoteEnd, statusKey } from './remote-state';
import type { Reconciliation } from './send-outcome';
import { msToNumber, type Duration } from '@temporalio/common';
import type { AcceptanceRule } from './acceptance-rule';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS, type CarriedStep, type DelegationCarry } from './delegation-carry';

const MAX_REFUSED_SIGNALS = 50;

/** What to do after an observation. */
export type NextStep = { kind: 'observe' } | { kind: 'accept' } | { kind: 'end'; outcome: Outcome } | { kind: 'interrupted' };

/** An admitted answer waiting to go out as the next turn: parts, or a credential by name. */
export type QueuedTurn = ({ requestId: string; kind: 'input'; parts: Part[] } | { requestId: string; kind: 'auth'; credential: string }) & {
  /** Who sent it (`tenant/user`), for the record's three principals; unset in turns queued before 1.0. */
  by?: string;
};

/** What every starter puts in a delegation's input for 0.9.0 workers in a rolling upgrade (see `resolveInSend`). */
export const FIRST_SEND_FLAGS = { resolveInSend: true, sendInFirstTask: true } as const;

/** The first send's local activity may take this long (its schedule-to-close timeout). */
export const FIRST_TASK_SEND_MS = 4_000;

/** The SDK heartbeats a workflow task that waits on a local activity at this share of its timeout. */
const TASK_HEARTBEAT_SHARE = 0.8;

/**
 * What one run goes on with beyond the record, and hands to the next when it continues as new: what
 * the resolve found, pushes, the deadline, how the task is being read.
 */
export interface RunFacts {
  agent?: ResolvedAgent;
  /** The acceptance policy in force. */
  policy: string;
  /** The policy as data, when the resolve could state it so: acceptance is then decided in the workflow. */
  rule?: AcceptanceRule;
  /** Push mode: pushes received (each a hint to read the task), pushes covered by a read, registration done. */
  push: { received: number; read: number; registered: boolean };
  /** When the contract's deadline passes (epoch ms, workflow time). */
  deadlineAt?: number;
  /** When reads at Baton's own pace stop (the contract's `maxWait`; epoch ms, workflow time). */
  waitUntil?: number;
  /** The request the `notify` workflow was last told about. */
  announced?: string;
  /** History events after which the delegation continues as new (the worker's setting, from the resolve). */
  afterEvents: number;
  /** Runs before this one (continued as new). */
  runs: number;
  /** The task has worked for long: it is read sparsely, one read per activity attempt (agents.X.sparsePoll). */
  workingLong: boolean;
}

/** How the next wait for the remote task reads it: pushes, sparse reads (one per attempt), or a stream or polls. */
export type Observation = { kind: 'push' } | { kind: 'sparse'; every: string; attemptSpan?: string } | { kind: 'poll' };

/** Why a delegation is being cancelled decides its outcome: a caller's cancel, the deadline, or a broken contract. */
export type CancelKind = 'CANCELED' | 'TIMED_OUT' | 'ERROR';

/** A person's decision on a result that waits for review. */
export interface ReviewDecision {
  decision: 'accept' | 'reject';
  by: string;
  reason?: string;
}

/** The first problem zod found, as the refusals say it. */
function invalid(what: string, error: z.ZodError): string {
  return `invalid ${what}: ${error.issues[0]?.message}`;
}

export class DelegationState {
  readonly record: DelegationRecord;
  private requests = 0;
  private queued?: QueuedTurn;
  private review?: ReviewDecision;
  private reviewReasons: string[] = [];
  private readonly sentFor = new Map<string, string>();
  /** The status we last answered: seeing it again is a stale snapshot, not a new question. */
  private answeredKey?: string;
  private cancelKind: CancelKind = 'CANCELED';
  /** Bytes of the agent's content this delegation's history holds inline (artifacts, replies). */
  private inlineBytes = 0;
  /** What this run goes on with, carried by `carryAt` as one whole. */
  readonly run: RunFacts = {
    policy: '',
    push: { received: 0, read: 0, registered: false },
    afterEvents: DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS,
    runs: 0,
    workingLong: false,
  };

  constructor(
    id: string,
    private readonly input: DelegationInput,
    batonVersion?: string,
  ) {
    this.record = {
      recordVersion: RECORD_VERSION,
      id,
      ...(batonVersion ? { batonVersion } : {}),
      tenant: input.tenant,
      owner: input.owner,
      agent: { name: input.agent },
      status: 'STARTING',
      remote: { history: [] },
      pending: null,
      turns: [],
      notes: [],
      refusedSignals: [],
      remoteCalls: 0,
      artifacts: [],
      ...(input.policy ? { policy: input.policy } : {}),
    };
  }

  /** A state that goes on from what the run before it carried (it continued as new). */
  static resumed(input: DelegationInput, carried: DelegationCarry): DelegationState {
    const carry = carried.state;
    const state = new DelegationState(carry.record.id, input);
    Object.assign(state.record, carry.record);
    state.requests = carry.requests;
    for (const [requestId, messageId] of carry.sentFor) state.sentFor.set(requestId, messageId);
    state.answeredKey = carry.answeredKey;
    state.inlineBytes = carry.inlineBytes;
    state.reviewReasons = carry.reviewReasons;
    Object.assign(state.run, {
      agent: carried.agent,
      policy: carried.policy,
      ...(carried.rule ? { rule: carried.rule } : {}),
      push: { received: carried.push.unread, read: 0, registered: carried.push.registered },
      ...(carried.deadlineAt !== undefined ? { deadlineAt: carried.deadlineAt } : {}),
      ...(carried.waitUntil !== undefined ? { waitUntil: carried.waitUntil } : {}),
      ...(carried.announced !== undefined ? { announced: carried.announced } : {}),
      afterEvents: carried.afterEvents,
      runs: carried.runs,
      workingLong: carried.workingLong === true,
    });
    return state;
  }

  /**
   * What a new run needs to go on from step `at`, or why the state cannot be carried now: an answer, a
   * review or a cancel in progress is finished in this run first, and an unresolved agent never carries.
   */
  carryAt(at: CarriedStep): { carry: DelegationCarry } | { refused: string } {
    if (this.queued) return { refused: 'an answer is being sent' };
    if (this.review) return { refused: 'a review is being applied' };
    if (this.record.cancel || this.record.status === 'SETTLED') return { refused: 'the delegation is ending' };
    const run = this.run;
    if (!run.agent) return { refused: 'the agent is not resolved yet' };
    return {
      carry: {
        at,
        state: {
          record: this.record,
          requests: this.requests,
          sentFor: [...this.sentFor],
          ...(this.answeredKey !== undefined ? { answeredKey: this.answeredKey } : {}),
          inlineBytes: this.inlineBytes,
          reviewReasons: this.reviewReasons,
        },
        agent: run.agent,
        policy: run.policy,
        ...(run.rule ? { rule: run.rule } : {}),
        push: { registered: run.push.registered, unread: run.push.received - run.push.read },
        ...(run.deadlineAt !== undefined ? { deadlineAt: run.deadlineAt } : {}),
        ...(run.waitUntil !== undefined ? { waitUntil: run.waitUntil } : {}),
        ...(run.announced !== undefined ? { announced: run.announced } : {}),
        afterEvents: run.afterEvents,
        runs: run.runs + 1,
        ...(run.workingLong ? { workingLong: true } : {}),
      },
    };
  }

  /**
   * Whether the first send runs inside the first workflow task: only when its local activity is over
   * before the SDK would heartbeat a task of `taskTimeoutMs`; else it goes through the task queue.
   */
  sendsInFirstTask(taskTimeoutMs: number): boolean {
    return taskTimeoutMs * TASK_HEARTBEAT_SHARE > FIRST_TASK_SEND_MS;
  }

  /** How to wait for the remote task next: pushes, sparse reads once it has worked for long, or reads. */
  howToObserve(): Observation {
    const agent = this.run.agent;
    if (agent?.observe === 'push') return { kind: 'push' };
    const sparse = agent?.sparsePoll;
    if (sparse && (this.run.workingLong || msToNumber(sparse.after) === 0))
      return { kind: 'sparse', every: sparse.every, ...(sparse.attemptSpan ? { attemptSpan: sparse.attemptSpan } : {}) };
    return { kind: 'poll' };
  }

  /** After a wait: a task still working after `sparsePoll.after` is read sparsely from now on. */
  observedWith(how: Observation, next: NextStep): void {
    if (how.kind !== 'push' && this.run.agent?.sparsePoll && next.kind === 'observe') this.run.workingLong = true;
  }

  get status(): DelegationStatus {
    return this.record.status;
  }

  /**
   * Keeps what the resolve found (the agent, its rule, the worker's continue-as-new threshold) and
   * says how long until the contract's deadline, counted from `since` (the run's start), if it has one.
   */
  resolved(
    resolved: { agent: ResolvedAgent; acceptance?: AcceptanceRule; continueAsNewAfterEvents?: number },
    since: number,
    now: number,
  ): { wait: number } | undefined {
    const run = this.run;
    run.agent = resolved.agent;
    run.policy = this.recordResolved(resolved.agent);
    if (resolved.acceptance?.policy === run.policy) run.rule = resolved.acceptance;
    if (resolved.continueAsNewAfterEvents) run.afterEvents = resolved.continueAsNewAfterEvents;
    const maxWait = this.record.contract?.maxWait;
    if (maxWait) run.waitUntil = since + msToNumber(maxWait);
    const deadline = this.record.contract?.deadline;
    if (!deadline) return undefined;
    run.deadlineAt = since + msToNumber(deadline);
    return { wait: Math.max(1, run.deadlineAt - now) };
  }

  /** Records the card digest and chosen interface (and the card's fetch as a call); returns the policy in force. */
  private recordResolved(agent: ResolvedAgent): string {
    this.record.contract = { ...agent.contract, ...this.input.contract };
    this.record.agent = {
      name: agent.name,
      cardSha256: agent.cardSha256,
      interface: agent.interface,
      reconcile: agent.reconcile,
      observe: agent.observe,
      ...(agent.credentials ? { credentials: agent.credentials } : {}),
      ...(agent.clearance ? { clearance: agent.clearance } : {}),
    };
    if (agent.reconcile === 'unavailable')
      this.note('this agent offers no ListTasks (A2A 0.3): a send retried after a lost response may create a second remote task');
    this.record.policy ??= agent.defaultPolicy;
    this.countCalls(1);
    return this.record.policy;
  }

  /** The messageId of the next turn: `<delegation id>/turn-<n>`, so a replayed or retried send names it the same. */
  nextMessageId(): string {
    return turnMessageId(this.record.id, this.record.turns.length + 1);
  }

  turnSent(messageId: string, sentAt: string, parts?: Part[], question?: Part[], by?: string): void {
    this.run.workingLong = false; // a new turn: the task may be quick again
    this.record.turns.push({
      messageId,
      sentAt,
      ...(parts ? { parts: keptTurnParts(parts) } : {}),
      ...(question ? { question: keptTurnParts(question) } : {}),
      // The first turn is the owner's; an answer names whoever sent it (another user of the tenant, say).
      ...(by ? { by } : {}),
    });
  }

  /** Records what turn `messageId` conveyed of its data use (docs/data-use.md). */
  turnDataUse(messageId: string, dataUse: NonNullable<Turn['dataUse']>): void {
    const turn = this.record.turns.find((t) => t.messageId === messageId);
    if (turn) turn.dataUse = dataUse;
  }

  /** Records a remote observation and says what comes next. */
  observed(snapshot: RemoteSnapshot): NextStep {
    const remote = this.record.remote;
    remote.taskId = snapshot.taskId;
    remote.contextId = snapshot.contextId;
    const last = remote.history[remote.history.length - 1];
    if (!last || last.state !== snapshot.state) {
      remote.history.push({
        state: snapshot.state,
        observedAt: snapshot.observedAt,
        ...(snapshot.remoteTimestamp ? { remoteTimestamp: snapshot.remoteTimestamp } : {}),
      });
    }
    remote.state = snapshot.state;
    this.record.artifacts = snapshot.artifacts;
    this.inlineBytes += inlineBytesOf(snapshot.artifacts);
    if (snapshot.state === 'TASK_STATE_COMPLETED') return { kind: 'accept' };
    const ended = outcomeOfRemoteEnd(snapshot.state, snapshot.statusText);
    if (ended) return { kind: 'end', outcome: ended };
    if (snapshot.state === 'TASK_STATE_INPUT_REQUIRED' || snapshot.state === 'TASK_STATE_AUTH_REQUIRED') {
      if (statusKey(snapshot) === this.answeredKey) {
        this.record.status = 'REMOTE_ACTIVE';
        return { kind: 'observe' };
      }
      this.interrupted(snapshot);
      return { kind: 'interrupted' };
    }
    this.record.status = 'REMOTE_ACTIVE';
    return { kind: 'observe' };
  }

  /** Records a direct Message reply (the agent answered without a task); acceptance comes next. */
  replied(reply: { messageId: string; parts: Part[]; contextId?: string }): NextStep {
    this.record.reply = { messageId: reply.messageId, parts: reply.parts };
    this.inlineBytes += replyBytesOf(reply.parts);
    if (reply.contextId) this.record.remote.contextId = reply.contextId;
    return { kind: 'accept' };
  }

  /** Opens a pending request for an interrupted task; each interruption gets a new request id. */
  private interrupted(snapshot: RemoteSnapshot): void {
    const kind = snapshot.state === 'TASK_STATE_AUTH_REQUIRED' ? 'auth' : 'input';
    this.requests += 1;
    const pending: PendingRequest = {
      kind,
      requestId: `${this.record.id}/request-${this.requests}`,
      prompt: snapshot.statusParts ?? [],
      taskId: snapshot.taskId,
      contextId: snapshot.contextId,
      observedAt: snapshot.observedAt,
      statusKey: statusKey(snapshot),
      ...(kind === 'auth' && this.record.agent.credentials ? { credentials: this.record.agent.credentials } : {}),
    };
    this.record.pending = pending;
    this.record.status = kind === 'auth' ? 'WAITING_AUTH' : 'WAITING_INPUT';
  }

  /** Bytes of the agent's content already inline in this delegation's history: the activities keep the rest within the total. */
  get inlineSoFar(): number {
    return this.inlineBytes;
  }

  /** The remote status already answered, which observation must not stop at again. */
  get staleStatusKey(): string | undefined {
    return this.answeredKey;
  }

  /**
   * Why the delegation's contract ends it now, given what comes next, or undefined. The call budget
   * ends it while there is still something to observe; the input rounds when the agent asks once too often.
   */
  refuseToGoOn(next: NextStep): string | undefined {
    const contract = this.record.contract;
    if (next.kind === 'observe' && this.callBudget <= 0)
      return `remote call budget of ${contract?.maxRemoteCalls} used up (contract maxRemoteCalls)`;
    const maxRounds = contract?.maxInputRounds;
    if (next.kind === 'interrupted' && maxRounds !== undefined && this.requests > maxRounds) {
      return `the agent asked for input more than ${maxRounds} time(s) (contract maxInputRounds)`;
    }
    return undefined;
  }

  /**
   * How long a push delegation waits for a push before its backstop read: the agent's `backstopPoll`
   * (5m by default), cut, when paced reads are budgeted by time, to end at the contract's `maxWait`.
   */
  pushWait(byTime: boolean, now: number): number | Duration {
    const backstop = (this.run.agent?.backstopPoll ?? '5m') as Duration;
    const until = this.run.waitUntil;
    return byTime && until !== undefined ? Math.max(1, Math.min(msToNumber(backstop), until - now)) : backstop;
  }

  /**
   * Why the delegation may not read the task at its own pace (`how`) any longer at `now`, or undefined:
   * such reads are budgeted by time (the contract's `maxWait`), not by calls.
   */
  refuseLongerWait(how: Observation, now: number): string | undefined {
    const until = this.run.waitUntil;
    if (how.kind === 'poll' || until === undefined || now < until) return undefined;
    const state = this.record.remote.state ?? 'unknown';
    return `waited ${this.record.contract?.maxWait} for the remote task, still ${state} (contract maxWait)`;
  }

  /** Why `caller` may not act on this delegation, or undefined. contextId is never a permission. */
  refuseCaller(caller: Caller): string | undefined {
    return caller.tenant === this.record.tenant ? undefined : `caller of tenant ${caller.tenant} has no access to this delegation`;
  }

  /** Why an answer (`input`), authorization (`auth`) or review for `requestId` is refused, or undefined. */
  refuseAnswer(kind: 'input' | 'auth' | 'review', requestId: string, caller: Caller): string | undefined {
    const denied = this.refuseCaller(caller);
    if (denied) return denied;
    const pending = this.record.pending;
    if (this.record.status === 'SETTLED' || this.record.cancel) return 'the delegation is no longer waiting';
    if (!pending) return 'no request is pending';
    if (pending.requestId !== requestId) return `request ${requestId} is not the pending one (${pending.requestId})`;
    if (pending.kind !== kind)
      return `the pending request is for ${{ auth: 'authentication: use authorize', input: 'input: use answer', review: 'review: use review' }[pending.kind]}`;
    if (this.queued) return `request ${requestId} is already answered`;
    if (kind === 'review' && this.review) return 'already reviewed';
    return undefined;
  }

  /**
   * The turn an `answer` (`input`) or `authorize` (`auth`) payload asks for, or why it is refused. The
   * payload is untrusted (an Update's or a Signal's): it is checked against its schema first.
   */
  admit(kind: 'input' | 'auth', payload: unknown): { turn: QueuedTurn } | { refused: string } {
    if (kind === 'input') {
      const parsed = delegationSchemas().AnswerSchema.safeParse(payload);
      if (!parsed.success) return { refused: invalid('answer', parsed.error) };
      const why =
        this.refuseAnswer('input', parsed.data.requestId, parsed.data.caller) ??
        refuseAnswerData(parsed.data.parts, this.record.agent.name, this.record.agent.clearance);
      const by = `${parsed.data.caller.tenant}/${parsed.data.caller.user}`;
      return why ? { refused: why } : { turn: { requestId: parsed.data.requestId, kind: 'input', parts: parsed.data.parts, by } };
    }
    const parsed = delegationSchemas().AuthorizeSchema.safeParse(payload);
    if (!parsed.success) {
      const namesVariable = typeof payload === 'object' && payload !== null && 'secretRef' in payload;
      if (namesVariable)
        return {
          refused: `authorize names a credential (credential: <name>), not a variable of the worker; ${this.acceptedCredentials()}`,
        };
      return { refused: invalid('authorize', parsed.error) };
    }
    const why = this.refuseAnswer('auth', parsed.data.requestId, parsed.data.caller) ?? this.refuseCredential(parsed.data.credential);
    const by = `${parsed.data.caller.tenant}/${parsed.data.caller.user}`;
    return why ? { refused: why } : { turn: { requestId: parsed.data.requestId, kind: 'auth', credential: parsed.data.credential, by } };
  }

  /** Why the agent's entry does not allow credential `name` for this delegation, or undefined (unknown: resolved by an older worker). */
  private refuseCredential(name: string): string | undefined {
    const allowed = this.record.agent.credentials;
    if (!allowed || allowed.includes(name)) return undefined;
    return `credential "${name}" is not one this delegation may send; ${this.acceptedCredentials()}`;
  }

  /** The credentials this delegation may send, said for a refusal. */
  private acceptedCredentials(): string {
    const allowed = this.record.agent.credentials;
    const agent = this.record.agent.name;
    if (allowed?.length) return `agent ${agent} accepts ${allowed.join(', ')}`;
    if (allowed) return `agent ${agent} accepts none for this tenant (agents.${agent}.credentials in the worker's config)`;
    return `see agents.${agent}.credentials in the worker's config`;
  }

  /** Queues an admitted answer; the workflow sends it as the next turn. */
  queue(turn: QueuedTurn): void {
    this.queued = turn;
  }

  /** The queued turn, taken once. */
  takeQueued(): QueuedTurn | undefined {
    const turn = this.queued;
    this.queued = undefined;
    return turn;
  }

  get hasQueued(): boolean {
    return this.queued !== undefined;
  }

  /** Records that the answer to `requestId` went out as `messageId`, and clears the pending request. */
  answered(requestId: string, messageId: string, sentAt: string, parts?: Part[], by?: string): void {
    this.sentFor.set(requestId, messageId);
    const pending = this.record.pending;
    this.turnSent(messageId, sentAt, parts, pending?.requestId === requestId ? pending.prompt : undefined, by);
    this.answeredKey = pending?.statusKey;
    this.record.pending = null;
    this.record.status = 'REMOTE_ACTIVE';
  }

  /** The messageId the answer to `requestId` went out as, once sent. */
  sentAs(requestId: string): string | undefined {
    return this.sentFor.get(requestId);
  }

  /** Holds an accepted result for a person's review. */
  awaitReview(reasons: string[]): void {
    this.requests += 1;
    this.reviewReasons = reasons;
    this.record.pending = {
      kind: 'review',
      requestId: `${this.record.id}/request-${this.requests}`,
      prompt: reasons.map((text) => ({ text })),
      taskId: this.record.remote.taskId ?? '',
      contextId: this.record.remote.contextId ?? '',
      observedAt: this.record.remote.history.at(-1)?.observedAt ?? '',
      statusKey: 'review',
    };
    this.record.status = 'WAITING_REVIEW';
  }

  /** Why a `review` payload is refused, or undefined. */
  refuseReview(payload: unknown): string | undefined {
    const parsed = delegationSchemas().ReviewSchema.safeParse(payload);
    return parsed.success ? this.refuseAnswer('review', parsed.data.requestId, parsed.data.caller) : invalid('review', parsed.error);
  }

  /** Keeps a reviewer's decision until the workflow applies it (`decideOnReview`). */
  reviewGiven(review: ReviewDecision): void {
    this.review = review;
  }

  get hasReview(): boolean {
    return this.review !== undefined;
  }

  /** Settles on the reviewer's decision. */
  decideOnReview(): Outcome {
    const r = this.review;
    if (!r) throw new Error('no review was given');
    this.record.pending = null;
    const said = `${r.decision === 'accept' ? 'accepted' : 'rejected'} on review by ${r.by}${r.reason ? `: ${r.reason}` : ''}`;
    return this.decided(r.decision === 'accept', [...this.reviewReasons, said]);
  }

  /** Why a `cancel` payload is refused, or undefined. */
  refuseCancel(payload: unknown): string | undefined {
    const parsed = delegationSchemas().CancelSchema.safeParse(payload);
    if (!parsed.success) return invalid('cancel', parsed.error);
    return this.refuseCaller(parsed.data.caller) ?? (this.record.status === 'SETTLED' ? 'the delegation has already settled' : undefined);
  }

  /**
   * Marks a cancel as asked for, and why (`kind` decides the outcome); returns false when one was
   * already asked for or the delegation is settled (the first reason stands).
   */
  requestCancel(by: string, reason: string, kind: CancelKind = 'CANCELED'): boolean {
    if (this.record.cancel || this.record.status === 'SETTLED') return false;
    this.record.cancel = { by, reason };
    this.cancelKind = kind;
    this.record.status = 'CANCELLING';
    this.record.pending = null;
    return true;
  }

  /** Adds calls made to the agent (sends, reads, subscriptions, cancels). */
  countCalls(n: number): void {
    this.record.remoteCalls += n;
  }

  /** Adds reads Baton paced itself (push backstop, sparse reads): on the record, outside the call budget. */
  countPacedReads(n: number): void {
    this.record.remoteCalls += n;
    this.record.pacedReads = (this.record.pacedReads ?? 0) + n;
  }

  /** Calls still allowed by the contract (Infinity without a budget); paced reads are not counted. */
  get callBudget(): number {
    const max = this.record.contract?.maxRemoteCalls;
    return max === undefined ? Number.POSITIVE_INFINITY : max - (this.record.remoteCalls - (this.record.pacedReads ?? 0));
  }

  /** The outcome of a cancel, given the remote task's state after CancelTask (or GetTask). */
  cancelled(final?: RemoteSnapshot): Outcome {
    if (final) this.observedOnly(final);
    const remote = this.record.remote.state;
    const reasons = [this.record.cancel?.reason ?? 'cancelled'];
    if (!this.record.remote.taskId) reasons.push('no remote task had been created');
    else if (remote === 'TASK_STATE_CANCELED') reasons.push('remote task CANCELED');
    else if (remote && isTerminal(remote))
      reasons.push(`remote task ended ${remote.replace('TASK_STATE_', '')} before the cancel reached it; its result is not accepted`);
    else if (remote) reasons.push(`remote task still ${remote.replace('TASK_STATE_', '')} when last read`);
    return this.settle({ kind: this.cancelKind, reasons });
  }

  /** The outcome of a cancel whose CancelTask could not be requested (`why`): the remote task may run on. */
  cancelFailed(why: string): Outcome {
    const outcome = this.cancelled();
    outcome.reasons.push(`remote cancel could not be requested: ${why}`);
    return outcome;
  }

  /** Records a snapshot without deciding anything (used while cancelling). */
  private observedOnly(snapshot: RemoteSnapshot): void {
    const status = this.record.status;
    const pending = this.record.pending;
    this.observed(snapshot);
    this.record.status = status;
    this.record.pending = pending;
  }

  /**
   * Records an answer or authorization that came by Signal and was refused. The payload is untrusted
   * (another workflow sent it), so only well-typed fields are copied; the list keeps the latest 50.
   */
  refusedSignal(signal: RefusedSignal['signal'], payload: unknown, reason: string): RefusedSignal {
    const p = (typeof payload === 'object' && payload !== null ? payload : {}) as {
      requestId?: unknown;
      caller?: { tenant?: unknown; user?: unknown };
    };
    const text = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, 300) : undefined);
    const tenant = text(p.caller?.tenant);
    const user = text(p.caller?.user);
    const entry: RefusedSignal = {
      signal,
      reason,
      ...(text(p.requestId) ? { requestId: text(p.requestId) } : {}),
      ...(tenant || user ? { by: `${tenant ?? '?'}/${user ?? '?'}` } : {}),
    };
    this.record.refusedSignals.push(entry);
    if (this.record.refusedSignals.length > MAX_REFUSED_SIGNALS) this.record.refusedSignals.shift();
    return entry;
  }

  note(text: string): void {
    this.record.notes.push(text);
  }

  /** Notes how a retried send was reconciled. */
  reconciled(messageId: string, how: Reconciliation): void {
    const said = {
      found: 'its response was lost; the agent already had it, so it was not sent again',
      'not-found': 'its response was lost; the agent did not have it, so it was sent again',
      unsupported: 'its response was lost; the agent cannot be asked for it, so it was sent again (a duplicate remote task is possible)',
    }[how];
    this.note(`turn ${messageId}: ${said}`);
  }

  decided(accepted: boolean, reasons: string[]): Outcome {
    return this.settle({ kind: accepted ? 'ACCEPTED' : 'REJECTED', reasons });
  }

  /** Gives the delegation its outcome: the local status becomes SETTLED. */
  settle(outcome: Outcome): Outcome {
    this.record.outcome = outcome;
    this.record.status = 'SETTLED';
    return outcome;
  }
}

/** Largest turn (its parts as JSON) a record keeps inline; a larger one is noted by its size. */
export const TURN_PARTS_MAX_BYTES = 8 * 1024;

/** A turn's parts as the record keeps them: as they are when small, else a note of their size. */
export function keptTurnParts(parts: Part[]): Part[] {
  const size = JSON.stringify(parts).length;
  return size <= TURN_PARTS_MAX_BYTES ? parts : [{ text: `(${parts.length} parts, ${size} bytes as JSON: not kept in the record)` }];
}

/** What a queued turn says, as its record keeps it: an answer's parts; an auth turn names its credential, never its value. */
export function saidIn(turn: QueuedTurn): Part[] {
  if (turn.kind === 'input') return turn.parts;
  return [{ data: { credential: turn.credential } }];
}
