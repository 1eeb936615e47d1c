/**
 * One agent, one chosen interface: the calls a delegation makes, returning validated shared types.
 * Every call takes an AbortSignal so activity cancellation reaches the HTTP request.
 */
import { Client, JsonRpcTransportFactory, RestTransportFactory, TenantTransportDecorator } from '@a2a-js/sdk/client';
import type { AgentCard } from '@a2a-js/sdk';
import type { Part, StreamEvent, Task } from '../shared/a2a-types';
import type { ChosenInterface } from '../shared/delegation-types';
import { toFailure } from './errors';
import type { GrpcChannel } from './grpc-channel';
import { GrpcTransportFactory } from './grpc-transport';
import { sendResultFromSdk, streamEventFromSdk, taskFromSdk, userMessageToSdk, type SendResult } from './wire';

export interface SendTurn {
  messageId: string;
  parts: Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
}

/** What a gRPC interface needs besides the card: the channel (checked address, TLS) and the entry's auth header. */
export interface GrpcAccess {
  channel: GrpcChannel;
  /** Sent as metadata with every call (the entry's `auth`, read when the client is made). */
  headers: Record<string, string>;
}

export class AgentClient {
  private constructor(
    readonly agentName: string,
    private readonly client: Client,
    /** Metadata for every call: the auth header over gRPC (over HTTP the fetch adds it). */
    private readonly serviceParameters: Record<string, string> = {},
  ) {}

  static async create(
    agentName: string,
    card: AgentCard,
    iface: ChosenInterface,
    fetchImpl: typeof fetch,
    grpc?: () => Promise<GrpcAccess>,
  ): Promise<AgentClient> {
    // 👉 With legacyCompat the factories give a 0.3 transport for an interface marked 0.3, a 1.0 one otherwise.
    const legacyCompat = { enabled: true };
    let transport;
    let headers: Record<string, string> = {};
    if (iface.binding === 'GRPC') {
      if (!grpc) throw new Error(`agent ${agentName}: a gRPC interface needs its channel`);
      const access = await grpc();
      headers = access.headers;
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
    return new AgentClient(agentName, new Client(transport, card, { polling: true }), headers);
  }

  /** The options of one call. */
  private call(signal?: AbortSignal) {
    return { signal, serviceParameters: this.serviceParameters };
  }

  /** SendMessage with `returnImmediately`: the answer comes as soon as the task exists. */
  async send(turn: SendTurn, signal?: AbortSignal): Promise<SendResult> {
    try {
      const result = await this.client.sendMessage(
        {
          tenant: '',
          message: userMessageToSdk(turn),
          metadata: undefined,
          configuration: { acceptedOutputModes: [], returnImmediately: true, historyLength: 0, taskPushNotificationConfig: undefined },
        },
        this.call(signal),
      );
      return sendResultFromSdk(result);
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: SendMessage`);
    }
  }

  /**
   * SendStreamingMessage: the task's events from its creation (a Task first) or one direct Message.
   * Only for an agent whose card says it streams (the SDK would quietly send without a stream otherwise).
   */
  async *sendStream(turn: SendTurn, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    try {
      const events = this.client.sendMessageStream(
        {
          tenant: '',
          message: userMessageToSdk(turn),
          metadata: undefined,
          configuration: { acceptedOutputModes: [], returnImmediately: false, historyLength: 0, taskPushNotificationConfig: undefined },
        },
        this.call(signal),
      );
      for await (const event of events) yield streamEventFromSdk(event);
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: SendStreamingMessage`);
    }
  }

  /** CancelTask; the updated task. TaskNotCancelable arrives as an AgentRefused failure. */
  async cancel(taskId: string, signal?: AbortSignal): Promise<Task> {
    try {
      return taskFromSdk(await this.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, this.call(signal)));
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: CancelTask ${taskId}`);
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
        const task = await this.client.getTask({ tenant: '', id: opts.taskId, historyLength: 100 }, { signal: opts.signal });
        return has(task) ? taskFromSdk(task) : undefined;
      }
      if (this.protocolVersion.startsWith('0.')) return 'unsupported';
      let pageToken = '';
      for (let page = 0; page < 5; page++) {
        const res = await this.client.listTasks(
          {
            tenant: '',
            contextId: '',
            status: 0,
            pageSize: 100,
            pageToken,
            historyLength: 20,
            statusTimestampAfter: opts.since,
            includeArtifacts: true,
          },
          { signal: opts.signal },
        );
        const found = res.tasks.find(has);
        if (found) return taskFromSdk(found);
        if (!res.nextPageToken) return undefined;
        pageToken = res.nextPageToken;
      }
      return undefined;
    } catch (err) {
      const failure = toFailure(err, `agent ${this.agentName}: looking for turn ${messageId}`);
      const reason = (failure.details?.[0] as { reason?: string } | undefined)?.reason;
      if (reason === 'UNSUPPORTED_OPERATION' || reason === 'METHOD_NOT_FOUND') return 'unsupported';
      throw failure;
    }
  }

  /**
   * SubscribeToTask: the task's events as validated shared types, the first being a Task snapshot.
   * The stream may end (or drop) while the task is still active; the caller then asks GetTask.
   */
  async *subscribe(taskId: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    try {
      for await (const event of this.client.resubscribeTask({ tenant: '', id: taskId }, this.call(signal))) yield streamEventFromSdk(event);
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: SubscribeToTask ${taskId}`);
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
        const res = await this.client.listTasks(
          {
            tenant: '',
            contextId,
            status: 0,
            pageSize: 100,
            pageToken,
            historyLength: 0,
            statusTimestampAfter: '',
            includeArtifacts: false,
          },
          this.call(signal),
        );
        const found = res.tasks.find((t) => t.id === taskId);
        if (found) return { ...taskFromSdk(found), artifacts: [] };
        if (!res.nextPageToken) return undefined;
        pageToken = res.nextPageToken;
      }
      return undefined;
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: ListTasks in context ${contextId}`);
    }
  }

  /**
   * CreateTaskPushNotificationConfig: the agent will POST the task's events to `url` with
   * `Authorization: Bearer <token>` (and the token field, for agents that send it as a header).
   */
  async createPushConfig(taskId: string, url: string, token: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.createTaskPushNotificationConfig(
        { tenant: '', id: '', taskId, url, token, authentication: { scheme: 'Bearer', credentials: token } },
        this.call(signal),
      );
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: CreateTaskPushNotificationConfig for ${taskId}`);
    }
  }

  /** The protocol version of the chosen interface. */
  get protocolVersion(): string {
    return this.client.protocolVersion;
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Task> {
    try {
      return taskFromSdk(await this.client.getTask({ tenant: '', id: taskId, historyLength: 0 }, this.call(signal)));
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: GetTask ${taskId}`);
    }
  }
}
