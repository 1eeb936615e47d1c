/**
 * One agent, one chosen interface: the calls a delegation makes, returning validated shared types.
 * Every call takes an AbortSignal so activity cancellation reaches the HTTP request.
 */
import { Client, JsonRpcTransportFactory, RestTransportFactory, TenantTransportDecorator } from '@a2a-js/sdk/client';
import { HTTP_EXTENSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { instrumentCall, instrumentStream, type RemoteCall } from '../telemetry/a2a-call';
import type { Part, StreamEvent, Task } from '../shared/a2a-types';
import type { ChosenInterface } from '../shared/delegation-types';
import type { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../shared/failure-types';
import { failure, toFailure } from './errors';
import type { GrpcChannel } from './grpc-channel';
import { GrpcTransportFactory } from './grpc-transport';
import { DEFAULT_LIMITS } from '../config/schema';
import { sendResultFromSdk, streamEventFromSdk, taskFromSdk, userMessageToSdk, type SendResult } from './wire';

export interface SendTurn {
  messageId: string;
  parts: Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
  /** Extensions the turn uses: named in the message and asked for in the `A2A-Extensions` header. */
  extensions?: string[];
}

/** Whether `err` is (or was caused by) a call's own deadline: an abort whose reason is a TimeoutError. */
function isCallTimeout(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { name?: unknown }).name === 'TimeoutError') return true;
  }
  return false;
}

/** What a gRPC interface needs besides the card: the channel (checked address, TLS) and the entry's auth header. */
export interface GrpcAccess {
  channel: GrpcChannel;
  /** Metadata for each call (the entry's credentials, read or fetched when the call is made). */
  headers: () => Promise<Record<string, string>>;
  /** The agent refused the last call's credentials: forget its token; true when a fresh one is worth a try. */
  refused?: () => boolean;
}

export class AgentClient {
  private constructor(
    readonly agentName: string,
    private readonly client: Client,
    /** The chosen interface's binding (JSONRPC, HTTP+JSON, GRPC): a label of every call's span and metrics. */
    private readonly binding: string,
    /** Metadata for each call: the credentials over gRPC (over HTTP the fetch adds them). */
    private readonly serviceParameters: () => Promise<Record<string, string>> = () => Promise.resolve({}),
    /** Over gRPC: the agent refused the credentials (UNAUTHENTICATED); true when a fresh token is worth a try. */
    private readonly credentialsRefused?: () => boolean,
    /** The longest a call that is not a stream may take, whole answer included (`limits.callTimeoutMs`). */
    private readonly callTimeoutMs = DEFAULT_LIMITS.callTimeoutMs,
  ) {}

  /**
   * The failure `err` means, with one turn for a refused OAuth token over gRPC: the first refusal is
   * retried with a fresh token (over HTTP the fetch does that itself), a refusal of the fresh one is final.
   */
  private failure(err: unknown, what: string): ApplicationFailure {
    if (isCallTimeout(err))
      return failure(
        FailureType.RETRY_LATER,
        `${what}: no whole answer within ${this.callTimeoutMs} ms (agents.${this.agentName}.limits.callTimeoutMs)`,
        { reason: 'CALL_TIMEOUT' },
      );
    const f = toFailure(err, what);
    const grpcCode = (f.details?.[0] as { grpcCode?: number } | undefined)?.grpcCode;
    if (grpcCode === 16 && this.credentialsRefused?.())
      return failure(
        FailureType.RETRY_LATER,
        `${what}: the agent refused its access token; a fresh one is fetched and the call tried again`,
        {
          reason: 'TOKEN_REFUSED',
        },
      );
    return f;
  }

  static async create(
    agentName: string,
    card: AgentCard,
    iface: ChosenInterface,
    fetchImpl: typeof fetch,
    grpc?: () => Promise<GrpcAccess>,
    callTimeoutMs?: number,
  ): Promise<AgentClient> {
    // 👉 With legacyCompat the factories give a 0.3 transport for an interface marked 0.3, a 1.0 one otherwise.
    const legacyCompat = { enabled: true };
    let transport;
    let headers: () => Promise<Record<string, string>> = () => Promise.resolve({});
    let refused: (() => boolean) | undefined;
    if (iface.binding === 'GRPC') {
      if (!grpc) throw new Error(`agent ${agentName}: a gRPC interface needs its channel`);
      const access = await grpc();
      headers = access.headers;
      refused = access.refused;
      transport = await new GrpcTransportFactory({ grpcChannelCredentials: access.channel.credentials, legacyCompat }).create(
        access.channel.target,
        card,
      );
    } else {
      const factory =
        iface.binding === 'JSONRPC'
          ? new JsonRpcTransportFactory({ fetchImpl, legacyCompat })
          : new RestTransportFactory({ fetchImpl, legacyCompat });
      transport = await factory.create(iface.url, card);
    }
    if (iface.tenant) transport = new TenantTransportDecorator(transport, iface.tenant);
    return new AgentClient(agentName, new Client(transport, card, { polling: true }), iface.binding, headers, refused, callTimeoutMs);
  }

  /**
   * The options of one call: its signal, the auth metadata and the trace context. A call that is not a
   * stream also ends at `callTimeoutMs`: the read timeout only measures silence, so a body trickled
   * byte by byte, or one that never ends, would otherwise hold the activity for as long as it lives.
   */
  private async call(signal: AbortSignal | undefined, traceHeaders: Record<string, string>, stream = false, extensions?: string[]) {
    const bounded = stream ? signal : AbortSignal.any([...(signal ? [signal] : []), AbortSignal.timeout(this.callTimeoutMs)]);
    return {
      signal: bounded,
      serviceParameters: {
        ...(await this.serviceParameters()),
        ...traceHeaders,
        ...(extensions?.length ? { [HTTP_EXTENSION_HEADER]: extensions.join(',') } : {}),
      },
    };
  }

  private named(method: string, taskId?: string): RemoteCall {
    return { agent: this.agentName, binding: this.binding, method, ...(taskId ? { taskId } : {}) };
  }

  /** SendMessage with `returnImmediately`: the answer comes as soon as the task exists. */
  async send(turn: SendTurn, signal?: AbortSignal): Promise<SendResult> {
    try {
      return await instrumentCall(
        this.named('SendMessage', turn.taskId),
        async (trace) =>
          sendResultFromSdk(
            await this.client.sendMessage(
              {
                tenant: '',
                message: userMessageToSdk(turn),
                metadata: undefined,
                configuration: {
                  acceptedOutputModes: [],
                  returnImmediately: true,
                  historyLength: 0,
                  taskPushNotificationConfig: undefined,
                },
              },
              await this.call(signal, trace, false, turn.extensions),
            ),
          ),
        (r) => (r.kind === 'task' ? r.task.id : undefined),
      );
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: SendMessage`);
    }
  }

  /**
   * SendStreamingMessage: the task's events from its creation (a Task first) or one direct Message.
   * Only for an agent whose card says it streams (the SDK would quietly send without a stream otherwise).
   */
  async *sendStream(turn: SendTurn, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    try {
      yield* instrumentStream(
        this.named('SendStreamingMessage', turn.taskId),
        async function* (this: AgentClient, trace: Record<string, string>) {
          const events = this.client.sendMessageStream(
            {
              tenant: '',
              message: userMessageToSdk(turn),
              metadata: undefined,
              configuration: { acceptedOutputModes: [], returnImmediately: false, historyLength: 0, taskPushNotificationConfig: undefined },
            },
            await this.call(signal, trace, true, turn.extensions),
          );
          for await (const event of events) yield streamEventFromSdk(event);
        }.bind(this),
        taskIdOfEvent,
      );
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: SendStreamingMessage`);
    }
  }

  /** CancelTask; the updated task. TaskNotCancelable arrives as an AgentRefused failure. */
  async cancel(taskId: string, signal?: AbortSignal): Promise<Task> {
    try {
      return await instrumentCall(this.named('CancelTask', taskId), async (trace) =>
        taskFromSdk(await this.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, await this.call(signal, trace))),
      );
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: CancelTask ${taskId}`);
    }
  }

  /**
   * Finds the task a turn of ours already reached, by the turn's messageId in the task's history:
   * on the task itself for a follow-up turn, else among the caller's tasks updated since `since`.
   * Returns 'unsupported' when the agent cannot be asked (0.3 has no ListTasks).
   */
  async findTurn(
    messageId: string,
    opts: { taskId?: string; since: string; signal?: AbortSignal },
  ): Promise<Task | undefined | 'unsupported'> {
    const has = (t: { history?: { messageId?: string }[] }) => (t.history ?? []).some((m) => m.messageId === messageId);
    try {
      if (opts.taskId) {
        const id = opts.taskId;
        const task = await instrumentCall(this.named('GetTask', id), async (trace) =>
          this.client.getTask({ tenant: '', id, historyLength: 100 }, await this.call(opts.signal, trace)),
        );
        return has(task) ? taskFromSdk(task) : undefined;
      }
      if (this.protocolVersion.startsWith('0.')) return 'unsupported';
      let pageToken = '';
      for (let page = 0; page < 5; page++) {
        const token = pageToken;
        const res = await instrumentCall(this.named('ListTasks'), async (trace) =>
          this.client.listTasks(
            {
              tenant: '',
              contextId: '',
              status: 0,
              pageSize: 100,
              pageToken: token,
              historyLength: 20,
              statusTimestampAfter: opts.since,
              includeArtifacts: true,
            },
            await this.call(opts.signal, trace),
          ),
        );
        const found = res.tasks.find(has);
        if (found) return taskFromSdk(found);
        if (!res.nextPageToken) return undefined;
        pageToken = res.nextPageToken;
      }
      return undefined;
    } catch (err) {
      const failed = this.failure(err, `agent ${this.agentName}: looking for turn ${messageId}`);
      const reason = (failed.details?.[0] as { reason?: string } | undefined)?.reason;
      if (reason === 'UNSUPPORTED_OPERATION' || reason === 'METHOD_NOT_FOUND') return 'unsupported';
      throw failed;
    }
  }

  /**
   * SubscribeToTask: the task's events as validated shared types, the first being a Task snapshot.
   * The stream may end (or drop) while the task is still active; the caller then asks GetTask.
   */
  async *subscribe(taskId: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    try {
      yield* instrumentStream(
        this.named('SubscribeToTask', taskId),
        async function* (this: AgentClient, trace: Record<string, string>) {
          for await (const event of this.client.resubscribeTask({ tenant: '', id: taskId }, await this.call(signal, trace, true)))
            yield streamEventFromSdk(event);
        }.bind(this),
      );
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: SubscribeToTask ${taskId}`);
    }
  }

  /**
   * The task's status without its artifacts (ListTasks in its context with `includeArtifacts: false`),
   * for when the artifacts were assembled from the stream and are too large to fetch again. Undefined
   * when the agent cannot list (0.3) or the task is not among the first pages.
   */
  async statusOnly(taskId: string, contextId: string, signal?: AbortSignal): Promise<Task | undefined> {
    if (this.protocolVersion.startsWith('0.')) return undefined;
    try {
      let pageToken = '';
      for (let page = 0; page < 5; page++) {
        const token = pageToken;
        const res = await instrumentCall(this.named('ListTasks'), async (trace) =>
          this.client.listTasks(
            {
              tenant: '',
              contextId,
              status: 0,
              pageSize: 100,
              pageToken: token,
              historyLength: 0,
              statusTimestampAfter: '',
              includeArtifacts: false,
            },
            await this.call(signal, trace),
          ),
        );
        const found = res.tasks.find((t) => t.id === taskId);
        if (found) return { ...taskFromSdk(found), artifacts: [] };
        if (!res.nextPageToken) return undefined;
        pageToken = res.nextPageToken;
      }
      return undefined;
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: ListTasks in context ${contextId}`);
    }
  }

  /**
   * CreateTaskPushNotificationConfig: the agent will POST the task's events to `url` with
   * `Authorization: Bearer <token>` (and the token field, for agents that send it as a header).
   */
  async createPushConfig(taskId: string, url: string, token: string, signal?: AbortSignal): Promise<void> {
    try {
      await instrumentCall(this.named('CreateTaskPushNotificationConfig', taskId), async (trace) =>
        this.client.createTaskPushNotificationConfig(
          { tenant: '', id: '', taskId, url, token, authentication: { scheme: 'Bearer', credentials: token } },
          await this.call(signal, trace),
        ),
      );
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: CreateTaskPushNotificationConfig for ${taskId}`);
    }
  }

  /** The protocol version of the chosen interface. */
  get protocolVersion(): string {
    return this.client.protocolVersion;
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Task> {
    try {
      return await instrumentCall(this.named('GetTask', taskId), async (trace) =>
        taskFromSdk(await this.client.getTask({ tenant: '', id: taskId, historyLength: 0 }, await this.call(signal, trace))),
      );
    } catch (err) {
      throw this.failure(err, `agent ${this.agentName}: GetTask ${taskId}`);
    }
  }
}

/** The remote task an event of a new task's stream names (its first event is the Task). */
function taskIdOfEvent(event: StreamEvent): string | undefined {
  if ('task' in event) return event.task.id;
  if ('statusUpdate' in event) return event.statusUpdate.taskId;
  if ('artifactUpdate' in event) return event.artifactUpdate.taskId;
  return undefined;
}
