/**
 * What an AG-UI thread is in Baton, durably: a thread id names one delegation to an agent, one task
 * graph, or one served task, by an id derived from the caller's tenant and the thread (never kept in
 * memory), so a front end that reconnects, or a `baton ui` that restarted, finds the same work. Each
 * kind reads its view, waits for a change, takes the answers a resume carries and an explicit cancel.
 */
import type { BatonClient } from '../client/baton-client';
import { chosenWorkflowId } from '../client/baton-client';
import type { GraphClient } from '../client/graph-client';
import { anyChange, ChangeWaiter, HistoryFollower } from '../client/history-follower';
import type { ServedAgent } from '../serve/served-agent';
import { fieldsDigest as digest } from '../served-tasks/task-id';
import type { TaskWatch } from '../served-tasks/task-watch';
import { delegationOfRequest, delegationView, graphView, servedView, type AguiView } from '../shared/agui-mapping';
import { BatonError } from '../shared/baton-error';
import type { Caller, DelegationRecord } from '../shared/delegation-types';
import { A2AError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { answerOf, type ResumeEntry } from './run-input';

/** Waits longer than this read the work again anyway (bounds what a missed wake-up costs). */
const QUIET_MS = 5_000;
/** Nodes of a graph whose histories a run follows at once (the rest are seen on the graph's changes). */
const FOLLOWED_NODES = 8;

export interface AguiThread {
  /** The workflow the thread is (a delegation, a graph, a served task). */
  readonly id: string;
  /** Whether the work exists yet. */
  exists(): Promise<boolean>;
  view(): Promise<AguiView>;
  /** Resolves once the work may have changed, or after a quiet while. */
  changed(signal: AbortSignal, failPauseMs: number): Promise<void>;
  /** Applies one resume entry: the answer goes to the delegation that asked, with the same checks. */
  resume(entry: ResumeEntry, updateId: string): Promise<void>;
  cancel(reason: string): Promise<void>;
}

/** Temporal's Update id for a resume entry: the same run sent again answers once. */
export const resumeUpdateId = (threadId: string, runId: string, interruptId: string): string =>
  `agui-${digest('resume', threadId, runId, interruptId)}`;

const notOnThread = (entry: ResumeEntry, thread: string): BatonError =>
  new BatonError('NotFound', `interrupt ${entry.interruptId} is not one of thread ${thread}'s: nothing was answered`);

/** Sends `entry`'s answer to delegation `id` (the caller's: `show` says not found otherwise). */
async function answerDelegation(baton: BatonClient, id: string, entry: ResumeEntry, updateId: string): Promise<void> {
  const record = await baton.show(id);
  const pending = record.pending;
  if (!pending || pending.requestId !== entry.interruptId || record.status === 'SETTLED')
    throw new BatonError(
      'Refused',
      `interrupt ${entry.interruptId} is not pending: delegation ${id} is ${record.outcome ? `settled (${record.outcome.kind})` : record.status.toLowerCase()}; nothing was answered`,
    );
  if (entry.status === 'cancelled') {
    await baton.cancel(id, 'the front end cancelled the interrupt');
    return;
  }
  const answer = answerOf(pending.kind, entry);
  if (answer.kind === 'input') await baton.answer(id, pending.requestId, answer.parts, { updateId });
  else if (answer.kind === 'auth') await baton.authorize(id, pending.requestId, answer.credential, { updateId });
  else await baton.review(id, pending.requestId, answer.decision, answer.reason);
}

/** The thread's delegation to `agent`. */
export class DelegationThread implements AguiThread {
  readonly id: string;
  private waiter: ChangeWaiter | undefined;

  constructor(
    private readonly baton: BatonClient,
    readonly agent: string,
    readonly threadId: string,
  ) {
    this.id = chosenWorkflowId(baton.caller.tenant, `agui-${digest('delegation', agent, threadId)}`, 'a delegation') as string;
  }

  async exists(): Promise<boolean> {
    return this.baton.owns(this.id);
  }

  /** Starts the delegation with the thread's request (a second start finds the first). */
  async start(text: string): Promise<void> {
    await this.baton.start({ agent: this.agent, id: this.id, parts: [{ text }], existing: 'find' });
  }

  async view(): Promise<AguiView> {
    if (!this.waiter) {
      // Followed from before the first read, so no change after it is missed.
      this.waiter = new ChangeWaiter(this.baton.client, this.id);
      await this.waiter.prime();
    }
    return delegationView(await this.baton.show(this.id));
  }

  async changed(signal: AbortSignal, failPauseMs: number): Promise<void> {
    await this.waiter?.changed({ maxWaitMs: QUIET_MS, failPauseMs, signal });
  }

  resume(entry: ResumeEntry, updateId: string): Promise<void> {
    if (delegationOfRequest(entry.interruptId) !== this.id) throw notOnThread(entry, this.threadId);
    return answerDelegation(this.baton, this.id, entry, updateId);
  }

  async cancel(reason: string): Promise<void> {
    await this.baton.cancel(this.id, reason);
  }
}

/** The thread's task graph: its nodes are the run's steps; a node's question is the run's interrupt. */
export class GraphThread implements AguiThread {
  readonly id: string;
  private own: HistoryFollower | undefined;
  private nodes = new Map<string, HistoryFollower>();

  constructor(
    private readonly graphs: GraphClient,
    private readonly baton: BatonClient,
    readonly threadId: string,
    /** Charges the caller for the nodes' records a view read beyond the graph's (its budget's fan-out). */
    private readonly fanOut: (reads: number) => Promise<void> = () => Promise.resolve(),
  ) {
    this.id = chosenWorkflowId(baton.caller.tenant, `agui-${digest('graph', threadId)}`, 'a graph') as string;
  }

  async exists(): Promise<boolean> {
    try {
      await this.graphs.show(this.id, { limit: 1 });
      return true;
    } catch (err) {
      if (err instanceof BatonError && err.kind === 'NotFound') return false;
      throw err;
    }
  }

  /** Starts the graph from `spec` (a second start finds the first). */
  async start(spec: unknown, admit: (nodes: number) => Promise<void>): Promise<void> {
    await this.graphs.start(spec, { id: this.id, existing: 'find', admit: (s) => admit(s.nodes.length) });
  }

  async view(): Promise<AguiView> {
    if (!this.own) {
      this.own = new HistoryFollower(this.baton.client, this.id);
      await this.own.prime().catch(() => undefined);
    }
    const graph = await this.graphs.show(this.id);
    const running = graph.nodes.filter((n) => n.status === 'RUNNING').slice(0, FOLLOWED_NODES);
    // A node's question shows in its own history, not the graph's: its history is followed while it runs.
    for (const id of [...this.nodes.keys()]) if (!running.some((n) => n.delegationId === id)) this.nodes.delete(id);
    for (const n of running)
      if (!this.nodes.has(n.delegationId)) {
        const f = new HistoryFollower(this.baton.client, n.delegationId);
        await f.prime().catch(() => undefined);
        this.nodes.set(n.delegationId, f);
      }
    const waiting = graph.nodes.filter((n) => n.delegation?.pendingRequest).slice(0, FOLLOWED_NODES);
    const asking: DelegationRecord[] = [];
    for (const n of waiting) asking.push(await this.baton.show(n.delegationId));
    await this.fanOut(asking.length);
    return graphView(graph, asking);
  }

  async changed(signal: AbortSignal, failPauseMs: number): Promise<void> {
    const followers = [this.own, ...this.nodes.values()].filter((f): f is HistoryFollower => !!f);
    await anyChange(followers, { maxWaitMs: QUIET_MS, failPauseMs, signal });
  }

  resume(entry: ResumeEntry, updateId: string): Promise<void> {
    const node = delegationOfRequest(entry.interruptId);
    if (!node?.startsWith(`${this.id}/`)) throw notOnThread(entry, this.threadId);
    return answerDelegation(this.baton, node, entry, updateId);
  }

  async cancel(reason: string): Promise<void> {
    await this.graphs.cancel(this.id, reason);
  }
}

/** The thread's task on a service Baton serves: the same task an A2A caller would have, with the same checks. */
export class ServedThread implements AguiThread {
  readonly id: string;
  private watch: TaskWatch | undefined;

  constructor(
    private readonly served: ServedAgent,
    private readonly caller: Caller,
    readonly threadId: string,
  ) {
    this.id = served.taskIdFor(caller, this.messageId);
  }

  /** The messageId the thread's first message is taken under: what derives the task's id. */
  private get messageId(): string {
    return `agui-${digest('served', this.threadId)}`;
  }

  async exists(): Promise<boolean> {
    try {
      await this.served.tasks.owned(this.id, this.caller);
      return true;
    } catch (err) {
      if (err instanceof TaskNotFoundError) return false;
      throw fromA2A(err);
    }
  }

  async start(text: string): Promise<void> {
    await this.served.take(this.caller, { messageId: this.messageId, parts: [{ text }] }).catch((err: unknown) => {
      throw fromA2A(err);
    });
  }

  async view(): Promise<AguiView> {
    this.watch ??= this.served.tasks.watch(this.id, this.caller, { artifacts: true });
    return servedView(await this.watch.read());
  }

  async changed(signal: AbortSignal, failPauseMs: number): Promise<void> {
    await this.watch?.changed({ maxWaitMs: QUIET_MS, failPauseMs, signal });
  }

  async resume(entry: ResumeEntry, updateId: string): Promise<void> {
    // Whatever runs the task asks under its id: a delegation's `<id>/request-<n>`, a graph node's
    // `<id>/<node>/request-<n>`, an application workflow's `<id>/ask-<n>`.
    if (!entry.interruptId.startsWith(`${this.id}/`)) throw notOnThread(entry, this.threadId);
    const task = servedView(await this.served.tasks.view(this.id, this.caller).catch((err: unknown) => Promise.reject(fromA2A(err))));
    const open = task.interrupts.find((i) => i.id === entry.interruptId);
    if (!open)
      throw new BatonError(
        'Refused',
        `interrupt ${entry.interruptId} is not pending on thread ${this.threadId}'s task (${String(task.state.taskState)}); nothing was answered`,
      );
    if (entry.status === 'cancelled') return this.cancel();
    const answer = answerOf(open.metadata.baton.kind, entry);
    const parts =
      answer.kind === 'input' ? answer.parts : answer.kind === 'auth' ? [{ data: { credential: answer.credential } }] : undefined;
    if (!parts) throw new BatonError('InvalidRequest', 'a served task asks no review of its caller');
    await this.served.take(this.caller, { messageId: updateId, taskId: this.id, parts }).catch((err: unknown) => {
      throw fromA2A(err);
    });
  }

  /** Cancels the task (a served task keeps no reason: A2A's CancelTask has none). */
  async cancel(): Promise<void> {
    await this.served.tasks.cancel(this.caller, this.id);
  }
}

/** A served agent's protocol error as the kind the AG-UI caller acts on. */
function fromA2A(err: unknown): unknown {
  if (!(err instanceof A2AError)) return err;
  const message = (err as Error).message;
  if ((err as unknown) instanceof TaskNotFoundError) return new BatonError('NotFound', message);
  if ((err as unknown) instanceof RequestMalformedError) return new BatonError('InvalidRequest', message);
  return new BatonError('Refused', message);
}
