/**
 * A2A callers of a Baton-served gateway that reach it only through a proxy: the official JS client,
 * each call bounded by a timeout and retried as a careful caller would (the same messageId, so a
 * retried send is the same task), following each task with GetTask until it ends.
 */
import { randomUUID } from 'node:crypto';
import { Message, Task, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { FaultAgent } from '../../infra/fault-agent';
import type { ProxiedLink, RunningToxiproxy } from '../../infra/toxiproxy';
import { ConfigSchema, loopbackAgentEntry } from '../../src/config/schema';
import { freePort } from '../../src/runtime/free-port';
import { serveForTest, SKILLS } from '../helpers/served';
import { withWorker } from '../helpers/temporal';

const TOKEN = 'wire-caller-token-0123456789abcdef';
const auth = (ms: number) => ({ serviceParameters: { Authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(ms) });
const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
/** A caller's own bound on one call: a call that hears nothing this long is given up and tried again. */
const CALL_TIMEOUT_MS = 5_000;
const RETRY_PAUSE_MS = 500;

export interface ServedCaller {
  link: ProxiedLink;
  /** Sends a new message (retrying it until it is taken) and resolves with the task's id. */
  start(text: string): Promise<string>;
  /** Follows the task until it ends: ok when it COMPLETED with Baton's outcome ACCEPTED. */
  settle(taskId: string): Promise<{ ok: boolean }>;
  /** Messages that were answered with more than one task id. */
  duplicateTasks(): number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` with callers of a gateway in front of `agent`, served on a port only the proxy reaches for callers. */
export async function servedCallers<T>(
  toxiproxy: RunningToxiproxy,
  agent: FaultAgent,
  fn: (caller: ServedCaller) => Promise<T>,
): Promise<T> {
  const agents = { [agent.name]: loopbackAgentEntry(agent.url, { observe: 'auto' }) };
  return withWorker(agents, async (ctx) => {
    const proxyPort = await freePort();
    const config = ConfigSchema.parse({
      agents,
      api: { rateLimit: { requestsPerMinute: 60_000, burst: 10_000 } },
      serve: {
        publicUrl: `http://127.0.0.1:${proxyPort}`,
        pollMs: 100,
        services: { 'wire-gateway': { description: 'A gateway behind a faulty link', skills: SKILLS, delegate: { agent: agent.name } } },
      },
    });
    const served = await serveForTest(ctx, config, { acme: TOKEN, globex: `${TOKEN}-globex` });
    try {
      const link = await toxiproxy.link('served', served.api.url.replace('http://', ''), proxyPort);
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory()],
          preferredTransports: ['JSONRPC'],
        }),
      );
      const client: Client = await factory.createFromUrl(`${link.url}/a2a/wire-gateway/`);
      const taskIds = new Map<string, Set<string>>();
      return await fn({
        link,
        async start(text) {
          const messageId = `wire-${randomUUID()}`;
          const message = Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text }], taskId: '', contextId: '' });
          const request: SendMessageRequest = {
            metadata: undefined,
            tenant: '',
            message,
            configuration: { acceptedOutputModes: [], returnImmediately: true, historyLength: 0, taskPushNotificationConfig: undefined },
          };
          for (;;) {
            try {
              const sent = await client.sendMessage(request, auth(CALL_TIMEOUT_MS));
              const id = Task.toJSON(sent as Task) as { id?: string };
              if (!id.id) throw new Error('the gateway answered with a message, not a task');
              taskIds.set(messageId, (taskIds.get(messageId) ?? new Set()).add(id.id));
              return id.id;
            } catch {
              await pause(RETRY_PAUSE_MS);
            }
          }
        },
        async settle(id) {
          for (;;) {
            try {
              const task = Task.toJSON(await client.getTask({ tenant: '', id, historyLength: 0 }, auth(CALL_TIMEOUT_MS))) as {
                status: { state: string };
                metadata?: { batonOutcome?: string };
              };
              if (TERMINAL.has(task.status.state))
                return { ok: task.status.state === 'TASK_STATE_COMPLETED' && task.metadata?.batonOutcome === 'ACCEPTED' };
            } catch {
              // The link is down or the answer was lost: ask again.
            }
            await pause(RETRY_PAUSE_MS);
          }
        },
        duplicateTasks: () => [...taskIds.values()].reduce((n, ids) => n + ids.size - 1, 0),
      });
    } finally {
      await served.close();
    }
  });
}
