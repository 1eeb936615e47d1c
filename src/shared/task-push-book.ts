/**
 * The decisions of a task's push workflow, pure: which webhooks it has, what each is owed, what was
 * given up on. The workflow calls the activities; this book says what to deliver next.
 */
import type { PushEvent, PushTarget, TaskChange, TaskPushCarry, TaskPushView, UndeliveredPush } from './task-push-types';

/** Webhooks one task may have. */
export const MAX_PUSH_TARGETS = 10;
/** Notifications owed to one webhook; past it the oldest is given up on (a caller down for long gets the latest). */
export const MAX_OWED = 50;
/** Undelivered notifications remembered, newest kept. */
export const MAX_UNDELIVERED = 100;

/** The failure type of a notification the webhook refused for good (a 4xx, or an address Baton may not post to). */
export const PUSH_REFUSED = 'PushRefused';

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export class TaskPushBook {
  private readonly targets = new Map<string, PushTarget>();
  private readonly queues = new Map<string, PushEvent[]>();
  private seq: number;
  private deliveredCount: number;
  private readonly undelivered: UndeliveredPush[];
  /** Per webhook: what the task showed in the last notification it took. */
  private readonly lastSent: Map<string, string>;
  /** The last change seen (absent: nothing seen yet). */
  fingerprint: string | undefined;
  ended = false;

  constructor(
    readonly taskId: string,
    carried?: TaskPushCarry,
  ) {
    for (const t of carried?.targets ?? []) {
      this.targets.set(t.id, t);
      this.queues.set(t.id, [...(carried?.queues[t.id] ?? [])]);
    }
    this.seq = carried?.seq ?? 0;
    this.deliveredCount = carried?.delivered ?? 0;
    this.undelivered = [...(carried?.undelivered ?? [])];
    this.fingerprint = carried?.fingerprint;
    this.lastSent = new Map(Object.entries(carried?.lastSent ?? {}));
    this.ended = carried?.ended ?? false;
  }

  /** Why `target` cannot be kept, or undefined. The server checked its URL and sealed its secrets. */
  refuseSet(target: PushTarget): string | undefined {
    if (!target || typeof target !== 'object') return 'a push config is an object';
    if (typeof target.id !== 'string' || !ID.test(target.id)) return 'a push config id uses letters, digits and . _ : - (at most 128)';
    if (typeof target.url !== 'string' || !/^https?:\/\//.test(target.url) || target.url.length > 2048)
      return 'a push config url is an http(s) URL of at most 2048 characters';
    if (!this.targets.has(target.id) && this.targets.size >= MAX_PUSH_TARGETS)
      return `task ${this.taskId} has ${MAX_PUSH_TARGETS} push configs already: delete one first`;
    return undefined;
  }

  /** Keeps `target`. A new one is owed the task as it is; a replaced one keeps what it was owed. */
  set(target: PushTarget): { isNew: boolean } {
    const isNew = !this.targets.has(target.id);
    this.targets.set(target.id, target);
    if (isNew) this.queues.set(target.id, [{ seq: ++this.seq, kind: 'task' }]);
    return { isNew };
  }

  /** Forgets webhook `id` and what it was owed. False when there was none. */
  delete(id: string): boolean {
    this.queues.delete(id);
    this.lastSent.delete(id);
    return this.targets.delete(id);
  }

  has(id: string): boolean {
    return this.targets.has(id);
  }

  get size(): number {
    return this.targets.size;
  }

  /** The targets kept, for a new run's delivery loops. */
  ids(): string[] {
    return [...this.targets.keys()];
  }

  /**
   * What the watch saw. Every webhook is owed a change it has not been shown (a new webhook's first
   * notification is read when posted, so a change seen before that is owed until the post says what it
   * showed); the task's end goes as the task itself, with its artifacts.
   */
  observed(change: TaskChange, at: string): void {
    if (change.kind === 'unchanged') return;
    if (change.kind === 'gone') {
      this.ended = true;
      return;
    }
    this.fingerprint = change.fingerprint;
    if (change.ended) this.ended = true;
    const event: PushEvent = change.ended
      ? { seq: ++this.seq, kind: 'task', fingerprint: change.fingerprint }
      : { seq: ++this.seq, kind: 'status', fingerprint: change.fingerprint, contextId: change.contextId, status: change.status };
    for (const [id, queue] of this.queues) {
      const shown = queue.length ? queue[queue.length - 1]?.fingerprint : this.lastSent.get(id);
      if (shown === event.fingerprint) continue;
      queue.push(event);
      while (queue.length > MAX_OWED) {
        const dropped = queue.shift() as PushEvent;
        this.giveUp(id, dropped, `more than ${MAX_OWED} notifications were owed to it; the oldest was dropped`, at);
      }
    }
  }

  /** The next notification owed to webhook `id`, with the target as it is now. */
  next(id: string): { target: PushTarget; event: PushEvent } | undefined {
    const target = this.targets.get(id);
    const event = this.queues.get(id)?.[0];
    return target && event ? { target, event } : undefined;
  }

  /**
   * Notification `seq` reached webhook `id`, showing the task as `fingerprint` says; what it owed next
   * that shows the same is not sent again.
   */
  delivered(id: string, seq: number, fingerprint: string): void {
    this.pop(id, seq);
    this.deliveredCount++;
    if (!this.targets.has(id)) return;
    this.lastSent.set(id, fingerprint);
    const queue = this.queues.get(id) ?? [];
    while (queue.length && queue[0]?.fingerprint === fingerprint) queue.shift();
  }

  /** Notification `event` did not reach webhook `id` after its retries: recorded, and the next one goes (a deleted webhook's is not recorded). */
  failed(id: string, event: PushEvent, reason: string, at: string): void {
    this.pop(id, event.seq);
    if (this.targets.has(id)) this.giveUp(id, event, reason, at);
  }

  /** Every webhook has had what it is owed. */
  drained(): boolean {
    return [...this.queues.values()].every((q) => q.length === 0);
  }

  view(): TaskPushView {
    return {
      taskId: this.taskId,
      configs: [...this.targets.values()].map((t) => ({
        id: t.id,
        url: t.url,
        ...(t.authentication ? { scheme: t.authentication.scheme } : {}),
        hasToken: !!t.token,
        owed: this.queues.get(t.id)?.length ?? 0,
      })),
      delivered: this.deliveredCount,
      undelivered: [...this.undelivered],
      ended: this.ended,
    };
  }

  carry(): TaskPushCarry {
    return {
      targets: [...this.targets.values()],
      queues: Object.fromEntries(this.queues),
      ...(this.fingerprint !== undefined ? { fingerprint: this.fingerprint } : {}),
      lastSent: Object.fromEntries(this.lastSent),
      seq: this.seq,
      delivered: this.deliveredCount,
      undelivered: [...this.undelivered],
    };
  }

  private pop(id: string, seq: number): void {
    const queue = this.queues.get(id);
    if (queue?.[0]?.seq === seq) queue.shift();
  }

  private giveUp(id: string, event: PushEvent, reason: string, at: string): void {
    this.undelivered.push({ configId: id, seq: event.seq, what: event.kind === 'task' ? 'task' : event.status.state, reason, at });
    if (this.undelivered.length > MAX_UNDELIVERED) this.undelivered.shift();
  }
}
