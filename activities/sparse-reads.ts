/**
 * Sparse reads of many tasks on one worker (decision 0041). An attempt of `readSparsely` that finds
 * no news leaves its task here and completes asynchronously, holding no slot; the worker reads the
 * task every `every` itself and completes the attempt when there is news. After the attempt's held
 * reads it ends the attempt as benign, and Temporal starts the next one `every` later: the server
 * writes a few rows per attempt, not per read, and the delegation's history does not move.
 */
import { AsyncResource } from 'node:async_hooks';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { ActivityCancelledError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import { mapAtMost } from '../src/shared/map-at-most';
import { forHistory } from './boundary';
import type { ActivityContext } from './context';
import { withDownloads } from './downloads';
import { getObservedTask, isNews, type ObserveInput } from './observe-input';
import { MAX_POLL_FAILURES } from './poll';

/** What an attempt carries to the next in its heartbeat details: reads so far, failed reads in a row. */
export interface SparseProgress {
  reads: number;
  failures: number;
}

/** A held attempt. */
export interface HeldRead {
  /** The attempt's task token, to complete, fail or heartbeat it from outside the activity. */
  token: Uint8Array;
  /** The worker's client (the activity context's), with the worker's data converter. */
  client: Client;
  input: ObserveInput;
  everyMs: number;
  /** Reads this attempt may still make. */
  left: number;
  progress: SparseProgress;
  /** The delegation's workflow, under which blobs the result names are indexed. */
  workflowId: string | undefined;
  log: Logger;
}

/** A read's verdict: the snapshot to hand the workflow, or the state the task is still in. */
export type ReadVerdict = { done: RemoteSnapshot } | { done?: undefined; state: string };

/**
 * One sparse read: GetTask, then the snapshot when there is news or the wait passed `readUntil`.
 * A passing fault is counted in `progress`, and thrown as retryable until `MAX_POLL_FAILURES` in a
 * row, then for good; any other fault is thrown as it is.
 */
export async function readOnce(
  ctx: ActivityContext,
  input: ObserveInput,
  progress: SparseProgress,
  signal: AbortSignal,
  log: Logger,
): Promise<ReadVerdict> {
  const client = await ctx.agents.clientFor(input.agent);
  progress.reads += 1;
  let task: Awaited<ReturnType<typeof client.getTask>>;
  try {
    task = await getObservedTask(client, input, signal);
  } catch (err) {
    const f = err as ApplicationFailure;
    if (f.type !== FailureType.RETRY_LATER || signal.aborted) throw err;
    progress.failures += 1;
    if (progress.failures < MAX_POLL_FAILURES) throw err;
    throw ApplicationFailure.create({
      type: f.type,
      message: `${f.message} (${progress.failures} reads failed in a row)`,
      nonRetryable: true,
    });
  }
  progress.failures = 0;
  const snapshot = { ...(await ctx.snapshot(task)), calls: progress.reads };
  const over =
    (input.callBudget !== undefined && progress.reads >= input.callBudget) ||
    (input.readUntil !== undefined && Date.now() >= input.readUntil);
  if (!isNews(snapshot, input.staleStatusKey) && !over) return { state: task.status.state };
  log.info({ state: task.status.state, via: 'sparse poll', reads: progress.reads }, 'remote state');
  return { done: await withDownloads(ctx, input.agent.name, snapshot, log, signal) };
}

/** The benign end of an attempt that found no news: Temporal tries again after `every`. */
export const stillActive = (state: string): ApplicationFailure => benignEnd(`remote task still ${state}`);

/** An attempt ended as the wait itself (logged at debug, left out of failure metrics), its next one an ordinary one. */
function benignEnd(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.REMOTE_TASK_ACTIVE, message, category: ApplicationFailureCategory.BENIGN });
}

/**
 * Default most reads in flight at once for held attempts: as many as the activity slots that made
 * them before (`maxConcurrentActivities`' default), so an agent sees no more at once than it did.
 */
export const SPARSE_READ_CONCURRENCY = 100;

/** The held attempts of one worker, each read every `every` until news or its reads run out. */
export class SparseReads {
  private readonly held = new Set<HeldRead>();
  private readonly timers = new Map<HeldRead, NodeJS.Timeout>();
  private readonly due: HeldRead[] = [];
  private reading = 0;
  private readonly stopping = new AbortController();
  /**
   * Schedules a read in the async context this object was made in, not the activity's: a timer keeps
   * the context it was set in alive, and an activity's holds its whole task (about 12 KB a task).
   */
  private readonly schedule: (read: HeldRead) => void;

  constructor(
    private readonly ctx: ActivityContext,
    private readonly concurrency = SPARSE_READ_CONCURRENCY,
  ) {
    this.schedule = AsyncResource.bind((read: HeldRead) => this.later(read));
  }

  /** Takes an attempt whose first read found no news; its next read is `every` from now. */
  hold(read: HeldRead): void {
    if (this.stopping.signal.aborted) throw new Error('this worker is stopping: it holds no more sparse reads');
    this.held.add(read);
    this.schedule(read);
  }

  /**
   * Hands every held attempt back to Temporal (the worker is stopping): each ends as benign now, and
   * its next attempt, `every` later, runs on whichever worker takes it.
   */
  async handBack(): Promise<void> {
    this.stopping.abort();
    const all = [...this.held];
    for (const read of all) this.release(read);
    await mapAtMost(this.concurrency, all, (read) =>
      this.end(read, () => read.client.activity.fail(read.token, benignEnd('sparse read handed back: this worker is stopping'))),
    );
    if (all.length) this.ctx.logger.info({ attempts: all.length }, 'sparse reads handed back: the next attempt of each runs on any worker');
  }

  private later(read: HeldRead): void {
    const timer = setTimeout(() => {
      this.timers.delete(read);
      this.due.push(read);
      this.pump();
    }, read.everyMs);
    timer.unref();
    this.timers.set(read, timer);
  }

  private release(read: HeldRead): void {
    this.held.delete(read);
    clearTimeout(this.timers.get(read));
    this.timers.delete(read);
  }

  private pump(): void {
    while (this.reading < this.concurrency && this.due.length) {
      const read = this.due.shift() as HeldRead;
      if (!this.held.has(read)) continue;
      this.reading += 1;
      void this.read(read)
        // Nothing is left to tell: the attempt times out, and Temporal's next one reads the task afresh.
        .catch((err: unknown) => read.log.warn({ err: (err as Error).message }, 'held sparse read lost'))
        .finally(() => {
          this.reading -= 1;
          this.pump();
        });
    }
  }

  private async read(read: HeldRead): Promise<void> {
    let verdict: ReadVerdict;
    try {
      verdict = await readOnce(this.ctx, read.input, read.progress, this.stopping.signal, read.log);
    } catch (err) {
      if (!this.held.has(read)) return;
      const f = err as ApplicationFailure;
      // A passing fault: the next read is at the usual time, as a failed attempt's retry would be.
      if (f.type === FailureType.RETRY_LATER && !f.nonRetryable) {
        read.log.warn({ err: f.message, failures: read.progress.failures }, 'sparse read failed; reading on');
        return this.next(read, 'unread: the last read failed');
      }
      this.release(read);
      await this.end(read, () => read.client.activity.fail(read.token, this.ctx.redactor.failure(err)));
      return;
    }
    if (!this.held.has(read)) return;
    if (verdict.done) {
      this.release(read);
      let result: RemoteSnapshot;
      try {
        result = await forHistory(this.ctx, verdict.done, read.input.inlineSoFar, read.workflowId);
      } catch (err) {
        // The store refused to index what the snapshot names: the attempt fails as a thrown one would.
        await this.end(read, () => read.client.activity.fail(read.token, this.ctx.redactor.failure(err)));
        return;
      }
      await this.end(read, () => read.client.activity.complete(read.token, result));
      return;
    }
    await this.next(read, verdict.state);
  }

  /** After a read without news: another in `every`, or the attempt ends when its reads ran out. */
  private async next(read: HeldRead, state: string): Promise<void> {
    read.left -= 1;
    if (read.left > 0) return this.later(read);
    this.release(read);
    // The next attempt learns the reads so far and the failures in a row from the details.
    await this.end(read, async () => {
      await read.client.activity.heartbeat(read.token, { ...read.progress });
      await read.client.activity.fail(read.token, stillActive(state));
    });
  }

  /** Reports the attempt's end; an attempt the server no longer runs (cancelled, timed out, its workflow gone) is let go. */
  private async end(read: HeldRead, report: () => Promise<void>): Promise<void> {
    try {
      await report();
    } catch (err) {
      // The delegation stopped waiting (a cancel): the attempt ends as cancelled, as a heartbeating one would.
      if (err instanceof ActivityCancelledError) await read.client.activity.reportCancellation(read.token).catch(() => undefined);
      // Not found, cancelled, timed out: nothing waits for this attempt any more. Anything else: the
      // attempt times out and Temporal tries it again, which reads the task afresh.
      read.log.debug({ err: (err as Error).message }, 'held sparse read let go');
    }
  }
}
