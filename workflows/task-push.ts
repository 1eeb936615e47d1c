/**
 * taskPushWorkflow: the push notifications of one served task. It keeps the callers' webhooks (A2A
 * push configs, through Updates), watches the task from an activity, and delivers each change to each
 * webhook from an activity with bounded retries; what cannot be delivered is recorded. It ends once
 * the task has ended and every webhook has had what it is owed. The task's own workflow is not touched.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { TaskPushBook } from '../src/shared/task-push-book';
import type { PushTarget, TaskPushCarry, TaskPushInput, TaskPushView } from '../src/shared/task-push-types';
import { pushing, watching } from './activity-stubs';
import { deletePushTargetUpdate, pushStateQuery, setPushTargetUpdate } from './messages';
import { refuse } from './refusal';

/** A run with no webhook left waits this long for a new one before it ends (a later one starts it again). */
const IDLE_END = '1 hour';

/** A run continues as new past this many events, between changes, once nothing is owed. */
const CONTINUE_AFTER_EVENTS = 2_000;

export async function taskPushWorkflow(input: TaskPushInput, carried?: TaskPushCarry): Promise<TaskPushView> {
  const push = new TaskPush(input, carried);
  const { book } = push;
  setHandler(pushStateQuery, () => book.view());
  setHandler(setPushTargetUpdate, (t) => push.set(t), { validator: (t) => refuse(book.refuseSet(t)) });
  setHandler(deletePushTargetUpdate, (id) => push.delete(id));

  const carry = await push.run();
  await condition(allHandlersFinished);
  if (carry) return continueAsNew<typeof taskPushWorkflow>(input, carry);
  return book.view();
}

class TaskPush {
  readonly book: TaskPushBook;
  private readonly deliver: ReturnType<typeof pushing>;
  /** Webhooks with a delivery loop running (one each, even when deleted and kept again at once). */
  private readonly looping = new Set<string>();
  /** The scope of each webhook's delivery under way, so a delete stops it. */
  private readonly inFlight = new Map<string, CancellationScope>();

  constructor(
    private readonly input: TaskPushInput,
    carried?: TaskPushCarry,
  ) {
    this.book = new TaskPushBook(input.taskId, carried);
    this.deliver = pushing(input.delivery);
    for (const id of this.book.ids()) this.startDelivering(id);
  }

  set(target: PushTarget): TaskPushView['configs'][number] {
    this.book.set(target);
    this.startDelivering(target.id);
    return this.book.view().configs.find((c) => c.id === target.id) as TaskPushView['configs'][number];
  }

  delete(id: string): boolean {
    // A notification on its way (or waiting for its next try) to that webhook stops too.
    this.inFlight.get(id)?.cancel();
    return this.book.delete(id);
  }

  /** Watches the task until it ends; undefined once everything owed is delivered, or a carry to go on in a new run. */
  async run(): Promise<TaskPushCarry | undefined> {
    const { taskId, service, runner, caller } = this.input;
    while (!this.book.ended) {
      if (!this.book.size && !(await condition(() => this.book.size > 0, IDLE_END))) return undefined;
      const change = await watching.awaitTaskChange({ taskId, service, runner, caller, since: this.book.fingerprint });
      this.book.observed(change, new Date().toISOString());
      const info = workflowInfo();
      if ((info.continueAsNewSuggested || info.historyLength >= CONTINUE_AFTER_EVENTS) && this.book.drained()) return this.book.carry();
    }
    await condition(() => this.book.drained());
    return undefined;
  }

  private startDelivering(id: string): void {
    if (this.looping.has(id)) return;
    this.looping.add(id);
    void this.deliverTo(id).finally(() => {
      this.looping.delete(id);
      // Deleted and kept again while the loop was ending: it goes on.
      if (this.book.has(id)) this.startDelivering(id);
    });
  }

  /** Delivers what webhook `id` is owed, in order, for as long as it is kept. */
  private async deliverTo(id: string): Promise<void> {
    const { taskId, service, runner, caller } = this.input;
    for (;;) {
      await condition(() => !this.book.has(id) || !!this.book.next(id));
      const next = this.book.next(id);
      if (!next) return;
      const scope = new CancellationScope();
      this.inFlight.set(id, scope);
      try {
        const posted = await scope.run(() =>
          this.deliver.deliverPush({ taskId, service, runner, caller, target: next.target, event: next.event }),
        );
        this.book.delivered(id, next.event.seq, posted.fingerprint);
      } catch (err) {
        const reason = err instanceof ActivityFailure && err.cause ? err.cause.message : (err as Error).message;
        this.book.failed(id, next.event, reason, new Date().toISOString());
      } finally {
        if (this.inFlight.get(id) === scope) this.inFlight.delete(id);
      }
    }
  }
}
