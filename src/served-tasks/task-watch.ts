/**
 * A watch over one served task, as its caller sees it: what a blocking SendMessage, an open stream and
 * the watch behind callers' webhooks follow. The ownership check on the history's first event, then a read each
 * time the task may have changed: when its workflow's history says so (a long poll, see
 * src/client/history-follower.ts), and, while a graph's node asks the question, when that node's
 * history does.
 * No timed reads: a quiet task is read again only when a wait's `maxWaitMs` runs out, which bounds
 * what a missed wake-up could cost.
 */
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { Caller } from '../shared/delegation-types';
import { anyChange, HistoryFollower, type ChangeWaitOptions } from '../client/history-follower';
import { followedFacts, type ServedTaskFacts, type ServedTaskReader } from './task-reader';
import type { WireTask } from './task-view';

/**
 * The longest a read waits for the workflow task under way to end (a Query would wait for it too):
 * a workflow task that runs longer heartbeats, which ends it and starts the next, within 10 s.
 */
const SETTLE_WAIT_MS = 10_000;

export interface TaskWatchOptions {
  /** Whether a COMPLETED task's view carries its artifacts. Default true. */
  artifacts?: boolean;
  /**
   * The task is the caller's by construction (its id derived from the caller, as a sent message's
   * is), in this context: no ownership check. Default: the first read checks ownership on the first
   * event of the task's history (its type, tenant and service), as the history is first read.
   */
  known?: { contextId: string };
}

export class TaskWatch {
  private facts: ServedTaskFacts | undefined;
  private own: HistoryFollower | undefined;
  /** The follower of a graph node whose question the task shows. */
  private asking: HistoryFollower | undefined;

  constructor(
    private readonly reader: ServedTaskReader,
    readonly id: string,
    private readonly caller: Caller,
    private readonly opts: TaskWatchOptions = {},
  ) {}

  /** The task now. The first read checks it is the caller's (TaskNotFoundError if not) as it starts following it. */
  async read(): Promise<WireTask> {
    if (!this.facts || !this.own) {
      const known = this.opts.known;
      const own = new HistoryFollower(this.reader.client, this.id);
      // Primed before the read: a change between the two wakes the next wait. A task not known to be
      // the caller's is checked on its history's first event as it is primed (no describe).
      // Known: the context the task started in (a message sent again may name another).
      const facts = known
        ? await own.prime().then(() => followedFacts(own, known.contextId))
        : await this.reader.followOwned(own, this.caller);
      [this.facts, this.own] = [facts, own];
    }
    await this.own.settled(SETTLE_WAIT_MS);
    const own = this.own;
    // A closed delegation's result is in the history just read: no second call for it.
    const result =
      own.status === 'COMPLETED' && own.result
        ? {
            value: await decodeFromPayloadsAtIndex(this.reader.client.options.loadedDataConverter, 0, own.result.payloads, {
              type: 'workflow',
              namespace: this.reader.client.options.namespace,
              workflowId: this.id,
            }),
          }
        : undefined;
    const read = await this.reader.readOwned(this.facts, this.caller, own.status, result);
    const asking = read.state.pending?.delegationId;
    if (!asking || asking === this.id) this.asking = undefined;
    else if (this.asking?.workflowId !== asking) {
      this.asking = new HistoryFollower(this.reader.client, asking);
      await this.asking.prime();
    }
    return this.reader.viewOf(read, this.opts);
  }

  /**
   * Resolves once the task may have changed since the last read (true), or after `maxWaitMs` without
   * a sign of change (false). Never throws: a history that cannot be followed pauses, then says "read".
   */
  changed(o: ChangeWaitOptions): Promise<boolean> {
    return anyChange(
      [this.own, this.asking].filter((f): f is HistoryFollower => !!f),
      o,
    );
  }
}
