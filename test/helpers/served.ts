import assert from 'node:assert/strict';
import pino from 'pino';
import { Message, StreamResponse, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '../../src/a2a/grpc-transport';
import { GraphClient } from '../../src/client/graph-client';
import type { BatonConfig } from '../../src/config/schema';
import { startApiServer, type RunningApi } from '../../src/http/api-server';
import { CallerGate } from '../../src/limits/caller-gate';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { prepareServing } from '../../src/serve/serving';
import type { Lookup } from '../../src/a2a/guarded-fetch';
import type { Connection } from '@temporalio/client';
import { BatonClient } from '../../src/client/baton-client';
import type { TestWorkerContext } from './temporal';

/**
 * The services the served-agent tests share: a gateway in front of supplier-qa and a two-node
 * pipeline whose second node checks another report (so its verdict tells which node's it is).
 */
export const SKILLS = [{ id: 'verify', name: 'Verify', description: 'Verifies an inspection report', tags: ['qa'] }];

export const SUPPLIER_CHECK = { description: 'Checked supplier verification', skills: SKILLS, delegate: { agent: 'supplier-qa' } };

/** The caller's request is inspected, then a second check runs on the same order (report inspection-93). */
export const PIPELINE = {
  description: 'Inspection, then a second check',
  skills: SKILLS,
  graph: {
    nodes: [
      { id: 'inspect', agent: 'supplier-qa', withRequest: true },
      { id: 'recheck', agent: 'supplier-qa', text: 'Verify inspection-93 against order A1042, product SN-4471', dependsOn: ['inspect'] },
    ],
  },
};

/**
 * `serve.push` for tests: loopback webhooks allowed, secrets sealed with a key from `keyEnv` (the
 * caller sets it), three quick tries per notification.
 */
export function testPush(keyEnv: string) {
  return {
    keys: { currentKey: 'k1', keys: { k1: { fromEnv: keyEnv } } },
    allowHttp: true,
    allowPrivateNetwork: true,
    attempts: 3,
    retryInitial: '200ms',
    retryMax: '1s',
  };
}

/** The key the tests' served task ids are made with (serve.taskIdKeyFromEnv's default variable). */
export const TASK_ID_KEY = Buffer.from((process.env.BATON_SERVE_TASK_ID_KEY ??= 'test-served-task-ids-key-0123456789abcdef'));

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
export const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** The two callers the tests use: acme's ops-1 (the worker's caller) and globex's ops-9. */
export const CALLERS = {
  acme: { tenant: 'acme', user: 'ops-1' },
  globex: { tenant: 'globex', user: 'ops-9' },
};

export interface ServedForTest {
  api: RunningApi;
  /** The official client for service `service`, preferring `binding`. */
  connect(service: string, binding: Binding): Promise<Client>;
  close(): Promise<void>;
}

/**
 * Serves `config.serve` beside the HTTP API on a free port, on the test worker's queue, for the
 * callers `tokens` names (acme and globex); through `opts.connection` when given (one that counts its calls).
 */
export async function serveForTest(
  ctx: TestWorkerContext,
  config: BatonConfig,
  tokens: { acme: string; globex: string },
  port = 0,
  opts: { lookup?: Lookup; connection?: Connection } = {},
): Promise<ServedForTest> {
  const logger = pino({ level: 'warn' });
  const { connection = ctx.client.connection, ...extra } = opts;
  const baton = new BatonClient(connection, { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller: CALLERS.acme });
  const graphs = new GraphClient(connection, {
    namespace: ctx.client.options.namespace,
    taskQueue: ctx.taskQueue,
    caller: CALLERS.acme,
  });
  const callers = new CallerTokens([
    { token: tokens.acme, caller: CALLERS.acme },
    { token: tokens.globex, caller: CALLERS.globex },
  ]);
  const gate = CallerGate.withDefaults(callers, config.api?.rateLimit);
  const serving = await prepareServing(config, { baton, graphs, gate, logger, ...extra });
  assert.ok(serving, 'the config serves something');
  const api = await startApiServer({
    baton,
    graphs,
    tokens: callers,
    budget: gate.budget,
    logger,
    host: '127.0.0.1',
    port,
    uiDir: null,
    servedAgents: serving.router,
    agui: { agents: config.agents, served: serving.agents },
  });
  serving.listening(api.url);
  return {
    api,
    connect: (service, binding) =>
      new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
          preferredTransports: [binding],
        }),
      ).createFromUrl(`${api.url}/a2a/${service}/`),
    close: async () => {
      await serving.close();
      await api.close();
    },
  };
}

/**
 * Sends `text` to the served agent at `serviceUrl` as a new message over a JSON-RPC stream (the
 * official client) and keeps the task's states: `first` once the stream has shown one, `states`
 * when it has ended.
 */
export async function servedStreamStates(
  serviceUrl: string,
  token: string,
  messageId: string,
  text: string,
): Promise<{ first: Promise<void>; states: Promise<string[]> }> {
  const client = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }),
  ).createFromUrl(serviceUrl);
  const request: SendMessageRequest = {
    tenant: '',
    message: Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text }], taskId: '', contextId: '' }),
    configuration: { acceptedOutputModes: [], returnImmediately: false, historyLength: 0, taskPushNotificationConfig: undefined },
    metadata: undefined,
  };
  let seen: () => void = () => {};
  const first = new Promise<void>((r) => (seen = r));
  const states = (async () => {
    const out: string[] = [];
    for await (const event of client.sendMessageStream(request, { serviceParameters: { Authorization: `Bearer ${token}` } })) {
      const json = StreamResponse.toJSON(event) as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } };
      const state = json.task?.status.state ?? json.statusUpdate?.status.state;
      if (state) out.push(state);
      seen();
    }
    return out;
  })();
  return { first, states };
}
