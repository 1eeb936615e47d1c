/**
 * One A2A agent Baton serves: the SDK's request handler interface, backed by Temporal. Each task is a
 * delegation workflow; reads are its record (Query, or the result once closed) and visibility; a
 * turn is the delegation's own validated Update. Nothing is kept in this process, so a restarted
 * server, or another replica, answers for every task.
 */
import { readThroughOutage } from '../client/read-through-outage';
import type { RideOut } from '../shared/ride-out';
import { AgentCard, Message as SdkMessage, StreamResponse as SdkStreamResponse, Task as SdkTask } from '@a2a-js/sdk';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { taskStateToJSON } from '@a2a-js/sdk';
import {
  A2AError,
  ExtensionSupportRequiredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { DATA_USE_EXTENSION, refuseForward, type DataUseRules, type ForwardTarget } from '../shared/data-use';
import type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import type { ServedAgentConfig } from '../config/schema';
import { asBatonError } from '../errors/as-baton-error';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bytes of the MAC in front of a ListTasks page token. */
const PAGE_MAC_BYTES = 16;
import { quoted } from '../client/baton-client';
import { MessageSchema, TaskStateSchema, type Part, type TaskState } from '../shared/a2a-types';
import type { Caller } from '../shared/delegation-types';
import type { ServedTasks } from '../served-tasks/served-tasks';
import { servedContextId, servedTaskId, turnUpdateId } from '../served-tasks/task-id';
import {
  changesBetween,
  fingerprintOf,
  INTERRUPTED_STATES,
  wireTaskOf,
  TERMINAL_STATES,
  withHistoryLength,
  type WireTask,
} from '../served-tasks/task-view';
import type { CallerWebhooks } from './caller-webhooks';
import { logSafe } from './log-safe-error';
import type { CallerBudget } from '../limits/caller-budget';

/** The caller a bearer token named, as the SDK's handlers pass it on. */
export class CallerUser implements User {
  constructor(
    readonly caller: Caller,
    /** Aborted when the caller goes away (its connection closed, its call cancelled): what waits for it stops. */
    readonly gone?: AbortSignal,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return `${this.caller.tenant}/${this.caller.user}`;
  }
}

export interface ServedAgentOptions {
  /** The service's name (`serve.services.<name>`). */
  name: string;
  config: ServedAgentConfig;
  /** The card in A2A's JSON form (signed, when configured), built once the server knows the URL it is reached at. */
  card: () => Promise<Record<string, unknown>>;
  /** The service's tasks: read, started, answered and cancelled through it, each request as its own caller. */
  tasks: ServedTasks;
  /** The key task ids are made with (`serve.taskIdKeyFromEnv`). */
  taskIdKey: Buffer;
  /** The tasks' push configs (callers' webhooks). */
  pushConfigs: CallerWebhooks;
  /** The pause before a blocking send or an open stream reads again when the task's history cannot be followed, in ms. */
  pollMs: number;
  /** How long a blocking send or an open stream rides out Temporal not answering (`api.streamRideOut`). Default two minutes. */
  rideOut?: RideOut;
  /** The callers' budget: each task a ListTasks page reads is charged as a request. Default: not charged. */
  budget?: CallerBudget;
  /** What a caller's data-use terms are checked against (docs/data-use.md). Default: the default labels, targets not known. */
  dataUse?: ServedDataUse;
  logger: Logger;
}

/** A service's side of the data-use extension: the labels and agents, those it passes data to, and whether it requires the extension. */
export interface ServedDataUse {
  required: boolean;
  rules: DataUseRules;
  /** The agents it passes its caller's data to; unset: not known. */
  targets?: ForwardTarget[];
}

/**
 * How long a blocking SendMessage waits before it answers with the task as it is. Node's fetch gives
 * up on a response whose headers have not come in 300 s, so a longer wait would only fail the caller.
 */
const BLOCKING_WAIT_MS = 240_000;

/** An open stream with nothing new says so again this often: fetch gives up on a body silent for 300 s. */
const STREAM_KEEPALIVE_MS = 120_000;

/**
 * A watched task with no sign of change is read again after this long anyway: what a wake-up missed
 * in a race could cost, and how often an open stream with nothing new reads its task.
 */
const QUIET_MS = 30_000;

/** How long CancelTask waits for the task to end (a graph cancels its running nodes first). */
const CANCEL_WAIT_MS = 60_000;

export class ServedAgent implements A2ARequestHandler {
  constructor(private readonly o: ServedAgentOptions) {}

  /** The card as the SDK's handlers use it (its object form). */
  async getAgentCard(): Promise<AgentCard> {
    return AgentCard.fromJSON(await this.o.card());
  }

  /** The card as callers read it: A2A's JSON form. */
  cardJson(): Promise<Record<string, unknown>> {
    return this.o.card();
  }

  /** The delegations one task of this service starts: a graph's nodes, else one. */
  get workCost(): number {
    return this.o.config.graph?.nodes.length ?? 1;
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(logSafe(new UnsupportedOperationError('this agent has no extended card')));
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<SdkMessage | SdkTask> {
    return this.guard(async () => {
      const caller = callerOf(context);
      const turn = await this.takeMessage(params, caller, context);
      const historyLength = params.configuration?.historyLength;
      if (params.configuration?.returnImmediately) {
        // A2A: answered as soon as the task exists. Its first workflow task sends the first turn and
        // follows the agent's answer for up to `readAfterSendMs`: a read would wait for all of that.
        if (turn.started) return SdkTask.fromJSON(this.o.tasks.submitted(turn.id, turn.contextId, turn.started));
        // A turn on a task, or a message sent again: the task as it is (read as a watch reads: a
        // Query now would wait for the workflow task under way anyway).
        return SdkTask.fromJSON(withHistoryLength(await this.o.tasks.watch(turn.id, caller, { known: turn }).read(), historyLength));
      }
      const deadline = Date.now() + BLOCKING_WAIT_MS;
      let last: WireTask | undefined;
      for await (const task of this.watch(turn.id, caller, turn, goneOf(context))) {
        last = task;
        if (settledForTurn(task, turn.answered) || Date.now() > deadline) break;
      }
      return SdkTask.fromJSON(last && withHistoryLength(last, historyLength));
    });
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<SdkStreamResponse, void, undefined> {
    const caller = callerOf(context);
    const turn = await this.guard(() => this.takeMessage(params, caller, context));
    yield* this.stream(turn.id, caller, (task) => settledForTurn(task, turn.answered), turn, goneOf(context));
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<SdkStreamResponse, void, undefined> {
    const caller = callerOf(context);
    await this.guard(async () => {
      const first = await this.view(named(params.id, 'id'), caller);
      if (TERMINAL_STATES.has(first.status.state))
        throw new UnsupportedOperationError(`task ${params.id} has ended (${first.status.state}): read it with GetTask`);
    });
    // A subscription follows the task, across its turns, to its end.
    yield* this.stream(params.id, caller, (task) => TERMINAL_STATES.has(task.status.state), undefined, goneOf(context));
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<SdkTask> {
    return this.guard(async () =>
      SdkTask.fromJSON(withHistoryLength(await this.view(named(params.id, 'id'), callerOf(context)), params.historyLength)),
    );
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<SdkTask> {
    return this.guard(async () => {
      const caller = callerOf(context);
      const deadline = Date.now() + CANCEL_WAIT_MS;
      const before = await this.view(named(params.id, 'id'), caller);
      if (before.status.state === 'TASK_STATE_CANCELED') return SdkTask.fromJSON(before);
      if (TERMINAL_STATES.has(before.status.state))
        throw new TaskNotCancelableError(`task ${params.id} has ended (${before.status.state}) and cannot be canceled`);
      try {
        await this.o.tasks.cancel(caller, params.id);
      } catch (err) {
        // Settled between the read and the cancel: said below from what it settled as.
        if (!(asBatonError(err)?.kind === 'Refused')) throw err;
      }
      // A graph cancels its running nodes before it ends: wait for the end (bounded), then say how it ended.
      let after = before;
      for await (const task of this.watch(params.id, caller)) {
        after = task;
        if (TERMINAL_STATES.has(task.status.state) || Date.now() > deadline) break;
      }
      // A race with completion is reported as it ended, never as a cancel that did not happen.
      if (TERMINAL_STATES.has(after.status.state) && after.status.state !== 'TASK_STATE_CANCELED')
        throw new TaskNotCancelableError(`task ${params.id} ended as ${after.status.state} before the cancel took effect`);
      // Canceled; or, still ending after CANCEL_WAIT_MS, the task as it is (the cancel goes on).
      return SdkTask.fromJSON(after);
    });
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.guard(async () => {
      const caller = callerOf(context);
      const pageSize = params.pageSize ?? 50;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) throw new RequestMalformedError('pageSize is 1 to 100');
      let wanted: TaskState | undefined;
      if (params.status) {
        const state = TaskStateSchema.safeParse(taskStateToJSON(params.status));
        if (!state.success) throw new RequestMalformedError(`status ${String(params.status)} is not a task state`);
        wanted = state.data;
      }
      const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
      if (after !== undefined && Number.isNaN(after)) throw new RequestMalformedError('statusTimestampAfter is not an ISO-8601 time');
      const filter = { pageSize, ...(params.contextId ? { contextId: params.contextId } : {}), ...(wanted ? { state: wanted } : {}) };
      const query = this.o.tasks.listQuery(caller, filter);
      const nextPageToken = params.pageToken ? this.openPageToken(params.pageToken, caller, query) : undefined;
      const page = await this.o.tasks.list(caller, { ...filter, ...(nextPageToken ? { nextPageToken } : {}) });
      const ids = page.ids;
      const tasks = await Promise.all(
        ids.map((id) => this.view(id, caller, { artifacts: params.includeArtifacts === true }).catch(() => undefined)),
      );
      await this.o.budget?.fanOut(caller, ids.length);
      return {
        tasks: tasks
          .filter((t): t is WireTask => !!t && (!wanted || t.status.state === wanted))
          .filter((t) => after === undefined || Date.parse(t.status.timestamp) > after)
          .map((t) => withHistoryLength(t, params.historyLength))
          .map((t) => SdkTask.fromJSON(params.includeArtifacts ? t : { ...t, artifacts: [] })),
        nextPageToken: page.nextPageToken ? this.sealPageToken(Buffer.from(page.nextPageToken), caller, query) : '',
        pageSize,
        totalSize: page.total,
      };
    });
  }

  createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.guard(async () => {
      const caller = callerOf(context);
      // The task must be the caller's: another's is not found.
      await this.o.tasks.owned(named(params.taskId, 'taskId'), caller);
      const kept = await this.o.pushConfigs.set(caller, params.taskId, params, this.shown(params.taskId, caller));
      this.o.logger.info({ taskId: params.taskId, service: this.o.name, configId: kept.id }, 'served task: push config kept');
      return kept;
    });
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.guard(async () => {
      await this.o.tasks.owned(named(params.taskId, 'taskId'), callerOf(context));
      return this.o.pushConfigs.get(params.taskId, named(params.id, 'id'));
    });
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.guard(async () => {
      await this.o.tasks.owned(named(params.taskId, 'taskId'), callerOf(context));
      // At most 10 configs per task: one page.
      return { configs: await this.o.pushConfigs.list(params.taskId), nextPageToken: '' };
    });
  }

  deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    return this.guard(async () => {
      const caller = callerOf(context);
      await this.o.tasks.owned(named(params.taskId, 'taskId'), caller);
      await this.o.pushConfigs.delete(caller, params.taskId, named(params.id, 'id'));
    });
  }

  /**
   * A page token as the caller gets it: Temporal's, with a MAC over it, the caller and the query (under
   * the server's task id key). Temporal answers a token it did not make with an internal error; a
   * caller's made-up or borrowed token is refused here instead, as malformed.
   */
  private sealPageToken(token: Buffer, caller: Caller, query: string): string {
    return Buffer.concat([this.pageMac(token, caller, query), token]).toString('base64url');
  }

  private openPageToken(given: string, caller: Caller, query: string): Buffer {
    const notOurs = new RequestMalformedError('pageToken is not one this server gave: start again without it');
    if (given.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(given)) throw notOurs;
    const bytes = Buffer.from(given, 'base64url');
    const token = bytes.subarray(PAGE_MAC_BYTES);
    if (bytes.length <= PAGE_MAC_BYTES || !timingSafeEqual(bytes.subarray(0, PAGE_MAC_BYTES), this.pageMac(token, caller, query)))
      throw notOurs;
    return token;
  }

  private pageMac(token: Buffer, caller: Caller, query: string): Buffer {
    return createHmac('sha256', this.o.taskIdKey)
      .update(JSON.stringify(['page', caller.tenant, caller.user, query]))
      .update(token)
      .digest()
      .subarray(0, PAGE_MAC_BYTES);
  }

  /**
   * Takes one message: a new task (a delegation started under an id derived from the caller and the
   * messageId), or a turn on the task it names (the answer to what the delegation waits for).
   */
  private async takeMessage(params: SendMessageRequest, caller: Caller, context: ServerCallContext): Promise<Turn> {
    if (!params.message) throw new RequestMalformedError('the request has no message');
    const parsed = MessageSchema.safeParse(SdkMessage.toJSON(params.message));
    if (!parsed.success)
      throw new RequestMalformedError(
        `invalid message: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ')}`,
      );
    const message = parsed.data;
    if (message.role !== 'ROLE_USER') throw new RequestMalformedError('a caller sends messages with role ROLE_USER');
    if (message.parts.length > 64) throw new RequestMalformedError(`a message has at most 64 parts (this one has ${message.parts.length})`);
    if (this.honourTerms(message.parts, (context.requestedExtensions ?? []).includes(DATA_USE_EXTENSION)))
      context.addActivatedExtension(DATA_USE_EXTENSION);
    // A webhook given with the message: checked before anything starts, kept once the task exists.
    const push = params.configuration?.taskPushNotificationConfig;
    const target = push ? await this.o.pushConfigs.targetOf(push) : undefined;
    const turn = message.taskId
      ? await this.takeTurn(message.taskId, message, caller)
      : await this.startTask(message.messageId, message.contextId, message.parts, caller);
    if (target) await this.o.pushConfigs.keep(caller, turn.id, target, this.shown(turn.id, caller));
    return turn;
  }

  private async startTask(messageId: string, givenContext: string | undefined, parts: Part[], caller: Caller): Promise<Turn> {
    const id = this.taskIdFor(caller, messageId);
    const contextId = givenContext || servedContextId(id);
    // A contextId Baton cannot file is refused before anything starts (guard makes it RequestMalformed).
    quoted('contextId', contextId);
    const started = await this.o.tasks.start(caller, id, parts, contextId);
    this.o.logger.info(
      { taskId: id, service: this.o.name, caller, started },
      started ? 'served task started' : 'served task found (a retried message)',
    );
    return { id, contextId, ...(started ? { started: new Date() } : {}) };
  }

  /**
   * A caller's data-use terms, honoured before any work starts (docs/data-use.md): data this service
   * would pass to an agent its terms or labels do not allow is refused, naming the rule; a call that
   * asked for the extension sees it activated (its acknowledgement).
   */
  private honourTerms(parts: Part[], asked: boolean): boolean {
    const use = this.o.dataUse ?? { required: false, rules: { labels: [], open: '', agents: [] } };
    if (use.required && !asked)
      throw new ExtensionSupportRequiredError(
        `service ${this.o.name} requires the data-use extension: ask for ${DATA_USE_EXTENSION} in the A2A-Extensions header`,
      );
    const refused = this.o.dataUse ? refuseForward(parts, this.o.name, use.targets, use.rules) : undefined;
    if (refused) {
      const message = `${refused.reason}; nothing was started`;
      throw refused.rule === 'malformed'
        ? new RequestMalformedError(message)
        : new UnsupportedOperationError({ message, metadata: { extension: DATA_USE_EXTENSION, rule: refused.rule } });
    }
    return asked;
  }

  /**
   * A message from a front end that is not an A2A client (AG-UI): a new task, or a turn on the task
   * it names, with the checks SendMessage makes (the caller's terms; the task is the caller's; what
   * it waits for), without a webhook or extensions.
   */
  take(caller: Caller, message: { messageId: string; taskId?: string; parts: Part[] }): Promise<Turn> {
    return this.guard(async () => {
      this.honourTerms(message.parts, false);
      return message.taskId
        ? this.takeTurn(message.taskId, message, caller)
        : this.startTask(message.messageId, undefined, message.parts, caller);
    });
  }

  /** The id of the task a message with `messageId` from `caller` starts (derived, never chosen). */
  taskIdFor(caller: Caller, messageId: string): string {
    return servedTaskId(this.o.taskIdKey, this.o.name, caller, messageId);
  }

  /** The service's tasks: for a front end that follows one (AG-UI) as a stream does. */
  get tasks(): ServedTasks {
    return this.o.tasks;
  }

  /** A message on an existing task: routed to the request its delegation waits for, or refused. */
  private async takeTurn(
    taskId: string,
    message: { messageId: string; contextId?: string; parts: Part[] },
    caller: Caller,
  ): Promise<Turn & { answered: string }> {
    const { facts, state } = await this.o.tasks.read(taskId, caller);
    if (message.contextId && message.contextId !== facts.contextId)
      throw new RequestMalformedError(`task ${taskId} is in context ${facts.contextId}, not ${message.contextId}`);
    const task = wireTaskOf(state, facts);
    if (TERMINAL_STATES.has(task.status.state))
      throw new UnsupportedOperationError(
        `task ${taskId} has ended (${task.status.state}) and takes no more messages: start a new task in context ${facts.contextId}`,
      );
    const pending = state.pending;
    const updateId = turnUpdateId(taskId, caller, message.messageId);
    if (pending?.kind === 'input') {
      await this.o.tasks.answer(caller, pending, message.parts, updateId);
    } else if (pending?.kind === 'auth') {
      const credential = message.parts
        .map((p) => (p.data && typeof p.data === 'object' ? (p.data as { credential?: unknown }).credential : undefined))
        .find((c): c is string => typeof c === 'string');
      if (!credential)
        throw new RequestMalformedError(
          `task ${taskId} waits for authentication: answer with a data part {"credential": "<name>"} naming one of: ${(pending.credentials ?? []).join(', ') || '(none configured)'}`,
        );
      await this.o.tasks.authorize(caller, pending, credential, updateId);
    } else {
      throw new UnsupportedOperationError(
        `task ${taskId} is not waiting for a message (${task.status.state}); subscribe or read it with GetTask`,
      );
    }
    return { id: taskId, contextId: facts.contextId, answered: pending.requestId };
  }

  /** Stream events for a task: its snapshot first, then each change, until `done` holds. */
  private async *stream(
    id: string,
    caller: Caller,
    done: (task: WireTask) => boolean,
    known?: { contextId: string },
    gone?: AbortSignal,
  ): AsyncGenerator<SdkStreamResponse, void, undefined> {
    let before: WireTask | undefined;
    let quietSince = Date.now();
    for await (const task of this.watch(id, caller, known, gone)) {
      if (!before) yield SdkStreamResponse.fromJSON({ task });
      else {
        const events = changesBetween(before, task);
        if (!events.length && Date.now() - quietSince >= STREAM_KEEPALIVE_MS)
          events.push({ statusUpdate: { taskId: task.id, contextId: task.contextId, status: task.status } });
        if (events.length) quietSince = Date.now();
        for (const event of events) yield SdkStreamResponse.fromJSON(event);
      }
      before = task;
      if (done(task)) return;
    }
  }

  /**
   * The task's view, read again each time it may have changed (its workflow's history says so, by long
   * poll: task-watch.ts), and after `QUIET_MS` without a sign: no timed reads, at most one describe
   * (none for a task this caller's message just started or answered: `known`).
   */
  private async *watch(id: string, caller: Caller, known?: { contextId: string }, gone?: AbortSignal): AsyncGenerator<WireTask> {
    const watch = this.o.tasks.watch(id, caller, known ? { known } : {});
    const stopped = new AbortController();
    // A caller that went away ends the wait under way at once, not when its long poll returns.
    const onGone = () => stopped.abort();
    gone?.addEventListener('abort', onGone, { once: true });
    try {
      for (;;) {
        let task: WireTask;
        try {
          // Temporal away for a while (a restart, a failover; or a Query dropped while its run was
          // evicted from the worker's cache) is ridden out: the caller sees no change meanwhile.
          task = await readThroughOutage(() => watch.read(), {
            ...(this.o.rideOut ? { rideOut: this.o.rideOut } : {}),
            what: `task ${id}`,
            onOutage: (err) =>
              this.o.logger.warn(
                { taskId: id, service: this.o.name, err: err.message },
                'served task: Temporal is not answering; reading again',
              ),
          });
        } catch (err) {
          throw this.protocolError(err);
        }
        yield task;
        await watch.changed({ maxWaitMs: QUIET_MS, failPauseMs: this.o.pollMs, signal: stopped.signal });
        if (gone?.aborted) return;
      }
    } finally {
      // The caller went away (or the watch ended): a long poll under way stops.
      gone?.removeEventListener('abort', onGone);
      stopped.abort();
    }
  }

  /** Reads what the caller sees of the task (its fingerprint), when asked: for a push config's carry. */
  private shown(id: string, caller: Caller): () => Promise<string> {
    return async () => fingerprintOf(await this.view(id, caller));
  }

  /** The task as the caller sees it. */
  private view(id: string, caller: Caller, opts: { artifacts?: boolean } = {}): Promise<WireTask> {
    return this.o.tasks.view(id, caller, opts);
  }

  /** Runs `fn`; an error that is not the protocol's own becomes one a caller can act on, and is logged. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.protocolError(err);
    }
  }

  /** The A2A error a caller is answered with; one the SDK prints in one line (see logSafe). */
  private protocolError(err: unknown): Error {
    return logSafe(this.asProtocolError(err));
  }

  private asProtocolError(err: unknown): Error {
    if (err instanceof A2AError) return err;
    const known = asBatonError(err);
    switch (known?.kind) {
      case 'NotFound':
        return new TaskNotFoundError(known.message);
      case 'InvalidRequest':
        return new RequestMalformedError(known.message);
      case 'Refused':
        return new UnsupportedOperationError(known.message);
      case 'Unavailable':
        this.o.logger.warn({ err: known.message, service: this.o.name }, 'served agent: Temporal unavailable');
        return new Error(`Baton cannot reach its workflows just now (${known.message}); try again shortly`);
      default:
        this.o.logger.error({ err, service: this.o.name }, 'served agent: internal error');
        return new Error('internal error (see the server log)');
    }
  }
}

/** A message taken: the task it started or answered (the caller's: checked, or its id derived from the caller). */
export interface Turn {
  id: string;
  contextId: string;
  /** The request the message answered, for a turn on an existing task. */
  answered?: string;
  /** When this message started the task (absent: a turn on a task, or a message sent again). */
  started?: Date;
}

/** Whether a task has answered the message just taken: ended, or waiting again for something new. */
function settledForTurn(task: WireTask, answered: string | undefined): boolean {
  if (TERMINAL_STATES.has(task.status.state)) return true;
  return INTERRUPTED_STATES.has(task.status.state) && task.status.message?.messageId !== answered;
}

/** A request's required id: a missing one is the caller's mistake (invalid params), not a task that is not found. */
function named(value: string | undefined, field: string): string {
  if (!value) throw new RequestMalformedError(`the request has no ${field}`);
  return value;
}

/** The signal that the caller of this request went away, if its binding gives one. */
function goneOf(context: ServerCallContext): AbortSignal | undefined {
  const user = context.user;
  return user instanceof CallerUser ? user.gone : undefined;
}

function callerOf(context: ServerCallContext): Caller {
  const user = context.user;
  // The router refuses a request without a known token before the SDK sees it.
  if (!(user instanceof CallerUser)) throw new Error('unauthenticated request reached a served agent');
  return user.caller;
}
