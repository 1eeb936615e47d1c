/**
 * Follows one workflow's history by long poll (GetWorkflowExecutionHistory with `waitNewEvent`), so
 * whoever watches a served task reads it again only when it may show something new, at once, instead
 * of at timed intervals. What a Query answers changes only while workflow code runs, and that code
 * runs only in workflow tasks: a completed workflow task, or the run's close, is the signal to read.
 * A run that continued as new is followed into the next. Following costs the task's workflow nothing:
 * no Signal, no event, no change to its code.
 */
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { rethrowKnownErrorTypes } from '@temporalio/client/lib/helpers';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { isDeadlineExceeded } from '../errors/as-baton-error';
import { pause } from './pause';
import { withOwnSignal } from './own-signal';

const EventType = temporal.api.enums.v1.EventType;

/** How a closing event leaves the execution (the names of WorkflowExecutionStatus, as a describe gives them). */
const CLOSED_AS = new Map<number, string>([
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, 'COMPLETED'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, 'FAILED'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, 'CANCELLED'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, 'TERMINATED'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, 'TIMED_OUT'],
]);

const TASK_BEGINS = new Set<number>([EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED]);
const TASK_ENDS = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
]);

/**
 * Events per page: a page shorter than this was the end of the history so far. A delegation continues
 * as new long before its history holds a few pages of them.
 */
const PAGE_SIZE = 1_000;

/** What a wait found: the run may show something new (with its status then), or nothing happened in time. */
export type HistoryChange = { kind: 'changed'; status: string } | { kind: 'quiet' };

export class HistoryFollower {
  private runId: string | undefined;
  private token: Uint8Array | undefined;
  private closedAs: string | undefined;
  /** When the run first followed started (its first event), once read. */
  startedAt: Date | undefined;
  /** The search attributes the run first followed started with (as its first event holds them, encoded). */
  startedWith: Record<string, temporal.api.common.v1.IPayload> | undefined;
  /** The workflow type the run first followed started as. */
  startedAs: string | undefined;
  /** A COMPLETED run's result, as its closing event holds it (encoded). */
  result: temporal.api.common.v1.IPayloads | undefined;
  /** A workflow task is scheduled or running: a Query now would wait for it (and, if it closes the run, for a replay). */
  private inFlight = false;
  /** A page read by a wait that was given up (another follower answered first) held a change: the next wait says so at once. */
  private owed = false;

  constructor(
    private readonly client: Client,
    readonly workflowId: string,
  ) {}

  /** The execution's status as far as the history has been read ("RUNNING" until a closing event). */
  get status(): string {
    return this.closedAs ?? 'RUNNING';
  }

  /**
   * Reads the history so far, without waiting, so the next `next()` waits only for what comes after
   * it. Call it before reading the workflow: a change between the two is then seen, never missed.
   * `checkStart` runs once the first page (with the run's first event) is read, before any other:
   * whatever it throws ends the prime, so a history that is not the reader's is not read further. A
   * first page that did not come in time leaves it unrun (`startedAs` is then unknown).
   */
  async prime(signal?: AbortSignal, checkStart?: () => void): Promise<string> {
    // With waitNewEvent the first page comes at once (there are events) and its token follows the run;
    // a later page waits only when the history ended exactly at a page's end, briefly then.
    for (let first = true; ; first = false) {
      const page = await this.page(first ? 10_000 : 1_000, signal);
      if (first && page) checkStart?.();
      if (!page || page.last) return this.status;
    }
  }

  /**
   * Waits (at most `maxWaitMs`) for the workflow task under way, if any, to end: what the run shows is
   * then settled, and a read is answered from the worker's cache. A Query sent while a workflow task
   * runs waits for it anyway, and if that task closes the run, the worker must replay the closed run
   * to answer (tens of ms in process, up to a second for a busy worker process, measured by
   * `npm run bench -- --serve`).
   */
  async settled(maxWaitMs: number, signal?: AbortSignal): Promise<void> {
    const until = Date.now() + maxWaitMs;
    while (this.inFlight && !this.closedAs && Date.now() < until && !signal?.aborted) {
      const page = await this.page(until - Date.now(), signal);
      if (page?.changed && signal?.aborted) this.owed = true;
    }
  }

  /**
   * Waits until the run may show something new past what was read, at most `maxWaitMs`. A failed call
   * to Temporal is thrown (whoever waits decides how to pause); an abort ends the wait as quiet.
   */
  async next(maxWaitMs: number, signal?: AbortSignal): Promise<HistoryChange> {
    const until = Date.now() + maxWaitMs;
    if (this.owed) {
      this.owed = false;
      return { kind: 'changed', status: this.status };
    }
    while (Date.now() < until && !signal?.aborted) {
      const page = await this.page(until - Date.now(), signal);
      if (page?.changed) {
        if (signal?.aborted) this.owed = true;
        else return { kind: 'changed', status: this.status };
      }
      // A closed run shows nothing new ever again: the wait lasts its time, quietly.
      if (this.closedAs) await pause(until - Date.now(), signal);
    }
    return { kind: 'quiet' };
  }

  /**
   * One page of events past the position; undefined when the deadline or the abort came first.
   * `last`: the page reached the end of the history so far; `changed`: it holds an event after which
   * the workflow may show something new.
   */
  private async page(waitMs: number, signal?: AbortSignal): Promise<{ changed: boolean; last: boolean } | undefined> {
    if (this.closedAs) return { changed: false, last: true };
    const { connection, options, workflowService } = this.client;
    let response: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    try {
      const call = () =>
        connection.withDeadline(Date.now() + Math.max(1, waitMs), () =>
          workflowService.getWorkflowExecutionHistory({
            namespace: options.namespace,
            execution: { workflowId: this.workflowId, ...(this.runId ? { runId: this.runId } : {}) },
            maximumPageSize: PAGE_SIZE,
            waitNewEvent: true,
            ...(this.token ? { nextPageToken: this.token } : {}),
          }),
        );
      response = signal ? await withOwnSignal(signal, (own) => connection.withAbortSignal(own, call)) : await call();
    } catch (err) {
      // A long poll that outlives its deadline (or is aborted) found nothing: not a failure.
      if (signal?.aborted || isDeadlineExceeded(err)) return undefined;
      // A namespace that does not exist is said as the SDK's own calls say it (not as a missing workflow).
      if (isGrpcServiceError(err)) rethrowKnownErrorTypes(err);
      throw err;
    }
    const events = response.history?.events ?? [];
    let changed = false;
    for (const event of events) {
      const type = event.eventType ?? 0;
      if (TASK_BEGINS.has(type)) this.inFlight = true;
      if (TASK_ENDS.has(type)) this.inFlight = false;
      if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) changed = true;
      if (type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED && !this.startedAt) {
        this.startedAt = optionalTsToDate(event.eventTime);
        this.startedWith = event.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields ?? undefined;
        this.startedAs = event.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;
      }
      this.result ??= event.workflowExecutionCompletedEventAttributes?.result ?? undefined;
      const closed = CLOSED_AS.get(type);
      if (closed) {
        this.closedAs = closed;
        changed = true;
      }
      const next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW && next) {
        // The next run starts from its first event; its first workflow task is the change.
        this.runId = next;
        this.token = undefined;
        this.inFlight = false;
        return { changed: true, last: false };
      }
    }
    const token = response.nextPageToken;
    if (token?.length) this.token = token;
    // A closed run's history has no page after its last; a running one's token waits for new events.
    return { changed, last: !token?.length || events.length < PAGE_SIZE };
  }
}

export interface ChangeWaitOptions {
  /** The longest wait before whoever waits reads again anyway. */
  maxWaitMs: number;
  /** The pause before reading again when the history cannot be followed (Temporal not answering). */
  failPauseMs: number;
  /** Ends the wait early (whoever watched went away). */
  signal?: AbortSignal;
}

/**
 * Resolves true once any of `followers` may show something new (and `then`, if given, is done), false
 * after `maxWaitMs` without a sign. Never throws: a history that cannot be followed pauses
 * `failPauseMs`, then says true (the read that follows meets the failure and rides it out).
 */
export async function anyChange(followers: HistoryFollower[], o: ChangeWaitOptions, then?: () => Promise<void>): Promise<boolean> {
  if (!followers.length) return true;
  const round = new AbortController();
  const stop = () => round.abort();
  o.signal?.addEventListener('abort', stop, { once: true });
  try {
    const first = await Promise.race(followers.map((f) => f.next(o.maxWaitMs, round.signal)));
    await then?.();
    return first.kind === 'changed';
  } catch {
    await pause(o.failPauseMs, o.signal);
    return true;
  } finally {
    round.abort();
    o.signal?.removeEventListener('abort', stop);
  }
}

/**
 * Follows delegation (or any workflow) `id` for a reader that re-reads it after each change: `prime()`
 * once its first read proved the caller may see it, then `changed()` between reads.
 */
export class ChangeWaiter {
  private readonly follower: HistoryFollower;
  private primed = false;

  constructor(client: Client, id: string) {
    this.follower = new HistoryFollower(client, id);
  }

  /** Starts following from here; a failure to follow is left to `changed()`, which then paces the reads. */
  async prime(): Promise<void> {
    this.primed = await this.follower.prime().then(
      () => true,
      () => false,
    );
  }

  /**
   * As `anyChange` for this workflow, and then its workflow task under way, if any, has ended: a read
   * comes after it, never during it (a Query would wait for it, or for a replay).
   */
  async changed(o: ChangeWaitOptions): Promise<boolean> {
    if (!this.primed) await this.prime();
    if (!this.primed) {
      await pause(o.failPauseMs, o.signal);
      return true;
    }
    return anyChange([this.follower], o, () => this.follower.settled(10_000, o.signal));
  }
}
