/**
 * One agent, one chosen interface: the calls a delegation makes, returning validated shared types.
 * Every call takes an AbortSignal so activity cancellation reaches the HTTP request.
 */
import { Client, JsonRpcTransportFactory, RestTransportFactory, TenantTransportDecorator } from '@a2a-js/sdk/client';
import type { AgentCard } from '@a2a-js/sdk';
import type { Part, Task } from '../shared/a2a-types';
import type { ChosenInterface } from '../shared/delegation-types';
import { toFailure } from './errors';
import { sendResultFromSdk, taskFromSdk, userMessageToSdk, type SendResult } from './wire';

export interface SendTurn {
  messageId: string;
  parts: Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
}

export class AgentClient {
  private constructor(
    readonly agentName: string,
    private readonly client: Client,
  ) {}

  static async create(agentName: string, card: AgentCard, iface: ChosenInterface, fetchImpl: typeof fetch): Promise<AgentClient> {
    // 👉 With legacyCompat the factories give a 0.3 transport for an interface marked 0.3, a 1.0 one otherwise.
    const legacyCompat = { enabled: true };
    const factory = iface.binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl, legacyCompat }) : new RestTransportFactory({ fetchImpl, legacyCompat });
    let transport = await factory.create(iface.url, card);
    if (iface.tenant) transport = new TenantTransportDecorator(transport, iface.tenant);
    return new AgentClient(agentName, new Client(transport, card, { polling: true }));
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
        { signal },
      );
      return sendResultFromSdk(result);
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: SendMessage`);
    }
  }

  /** CancelTask; the updated task. TaskNotCancelable arrives as an AgentRefused failure. */
  async cancel(taskId: string, signal?: AbortSignal): Promise<Task> {
    try {
      return taskFromSdk(await this.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal }));
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: CancelTask ${taskId}`);
    }
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Task> {
    try {
      return taskFromSdk(await this.client.getTask({ tenant: '', id: taskId, historyLength: 0 }, { signal }));
    } catch (err) {
      throw toFailure(err, `agent ${this.agentName}: GetTask ${taskId}`);
    }
  }
}
