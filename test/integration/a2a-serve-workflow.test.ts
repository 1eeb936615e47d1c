/**
 * An application's own workflow served as an A2A agent (`serve.services.<name>.workflow`): the shop's
 * worker is built with `withBaton`; its `servedOrderCheck` asks the caller a question through
 * `servedTask()`, delegates to supplier-qa, and completes with the accepted verdict. The official
 * JavaScript client drives it over JSON-RPC and gRPC; a webhook gets its end; a cancel ends it. The
 * official AG-UI client runs it too, its question an interrupt answered by a resume.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { Message, StreamResponse, Task, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { ConfigSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { withBaton } from '../../src/embed/with-baton';
import { GrpcTransportFactory } from '../../src/a2a/grpc-transport';
import { startApiServer } from '../../src/http/api-server';
import { CallerGate } from '../../src/limits/caller-gate';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { prepareServing } from '../../src/serve/serving';
import { loopbackAgent, testServer } from '../helpers/temporal';
import { HttpAgent } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { stateOf, Webhook } from '../helpers/webhook';

const ACME = 'acme-wf-token-0123456789abcdef';
const GLOBEX = 'globex-wf-token-0123456789abcdef';
const auth = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });
const quiet = pino({ level: 'warn' });

const request = (
  text: string,
  opts: { taskId?: string; id?: string; push?: string; returnImmediately?: boolean } = {},
): SendMessageRequest => ({
  tenant: '',
  message: Message.fromJSON({ messageId: opts.id ?? randomUUID(), role: 'ROLE_USER', parts: [{ text }], taskId: opts.taskId ?? '' }),
  configuration: {
    acceptedOutputModes: [],
    returnImmediately: opts.returnImmediately ?? false,
    historyLength: 0,
    taskPushNotificationConfig: opts.push
      ? { tenant: '', id: '', taskId: '', url: opts.push, token: '', authentication: undefined }
      : undefined,
  },
  metadata: undefined,
});

type Wire = {
  id: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
  artifacts?: { name?: string; parts: { data?: unknown }[] }[];
};
const wire = async (r: Promise<Message | Task>): Promise<Wire> => Task.toJSON((await r) as Task) as Wire;

describe('Baton serves an application workflow as an A2A agent', () => {
  let agent: RunningAgent;
  const hook = new Webhook();
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 30 }));
    await hook.start();
  });
  after(async () => {
    await agent.close();
    await hook.close();
  });

  it('asks its question, takes the answer on the same task, completes with its verdict; push and cancel work', async () => {
    installTemporalRuntime(quiet);
    const { address, namespace } = await testServer();
    const taskQueue = `shop-${randomUUID()}`;
    const agents = { 'supplier-qa': loopbackAgent(agent.url) };
    const config = ConfigSchema.parse({
      api: { rateLimit: { requestsPerMinute: 6000, burst: 1000 } },
      serve: {
        pollMs: 50,
        grpc: { listen: { host: '127.0.0.1', port: 0 } },
        push: { allowHttp: true, allowPrivateNetwork: true },
        services: {
          'order-check': {
            description: 'The shop’s order check: asks for the product, has the supplier verify it',
            skills: [{ id: 'check', name: 'Check an order', description: 'Verifies an inspection report for an order' }],
            workflow: { type: 'servedOrderCheck' },
          },
        },
      },
    });
    const native = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    try {
      // The shop's own worker: its workflows, with Baton's (delegations, and the webhooks of served tasks).
      const worker = await Worker.create({
        ...(await withBaton(
          { connection: native, namespace, taskQueue, workflowsPath: require.resolve('../workflows/embedding'), activities: {} },
          { config: { agents, serve: config.serve }, logger: quiet },
        )),
        shutdownGraceTime: '2s',
      });
      await worker.runUntil(async () => {
        const caller = { tenant: 'acme', user: 'ops-1' };
        const baton = new BatonClient(connection, { namespace, taskQueue, caller });
        const graphs = new GraphClient(connection, { namespace, taskQueue, caller });
        const tokens = new CallerTokens([
          { token: ACME, caller },
          { token: GLOBEX, caller: { tenant: 'globex', user: 'ops-9' } },
        ]);
        const gate = CallerGate.withDefaults(tokens);
        const serving = await prepareServing({ ...config, agents }, { baton, graphs, gate, logger: quiet });
        assert.ok(serving);
        const api = await startApiServer({
          baton,
          graphs,
          tokens,
          logger: quiet,
          host: '127.0.0.1',
          port: 0,
          uiDir: null,
          servedAgents: serving.router,
          agui: { agents, served: serving.agents },
        });
        serving.listening(api.url);
        const connect = (factory: JsonRpcTransportFactory | GrpcTransportFactory): Promise<Client> =>
          new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [factory] })).createFromUrl(
            `${api.url}/a2a/order-check/`,
          );
        try {
          const rpc = await connect(new JsonRpcTransportFactory());
          const grpc = await connect(new GrpcTransportFactory());
          const first = request('Verify inspection-92 against order A1042', { push: `${hook.url}/order-check` });
          const asked = await wire(rpc.sendMessage(first, auth(ACME)));
          assert.match(asked.id, /^a2a-order-check-[0-9a-f]{32}$/);
          assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(asked.status));
          assert.match(asked.status.message?.parts[0]?.text ?? '', /Which product/);
          // The same message again: the same task, still asking.
          assert.equal((await wire(rpc.sendMessage(first, auth(ACME)))).id, asked.id);
          // Another tenant cannot see it, nor answer it.
          await assert.rejects(
            rpc.getTask({ tenant: '', id: asked.id, historyLength: 0 }, auth(GLOBEX)),
            (e) => e instanceof TaskNotFoundError,
          );

          // The answer over gRPC, on the same task; the stream follows it to its end.
          const kinds: string[] = [];
          type Artifact = { name?: string; parts: { data?: unknown }[] };
          let verdict: Artifact | undefined;
          for await (const event of grpc.sendMessageStream(request('product SN-4471', { taskId: asked.id }), auth(ACME))) {
            const json = StreamResponse.toJSON(event) as {
              task?: { status: { state: string }; artifacts?: Artifact[] };
              statusUpdate?: { status: { state: string } };
              artifactUpdate?: { artifact: Artifact };
            };
            if (json.artifactUpdate) verdict = json.artifactUpdate.artifact;
            if (json.task) verdict = json.task.artifacts?.find((a) => a.name === 'verdict');
            kinds.push(
              json.task
                ? `task:${json.task.status.state}`
                : json.statusUpdate
                  ? `status:${json.statusUpdate.status.state}`
                  : 'artifactUpdate',
            );
          }
          // Its changes to the end; or, when the workflow finished before the stream's first read (a
          // busy machine), one event: the ended task, its verdict in it.
          if (kinds.length === 1) assert.deepEqual(kinds, ['task:TASK_STATE_COMPLETED']);
          else assert.deepEqual(kinds.slice(-2), ['artifactUpdate', 'status:TASK_STATE_COMPLETED'], kinds.join(', '));
          assert.equal(verdict?.name, 'verdict');
          assert.equal((verdict?.parts[0]?.data as { verdict?: string }).verdict, 'pass');
          const done = await wire(rpc.getTask({ tenant: '', id: asked.id, historyLength: 0 }, auth(ACME)));
          assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
          // An ended task takes no more messages.
          await assert.rejects(
            rpc.sendMessage(request('again', { taskId: asked.id }), auth(ACME)),
            (e) => e instanceof UnsupportedOperationError,
          );

          // The webhook given with the first message had the question and the end, with the verdict.
          const temporal = new TemporalClient({ connection, namespace });
          await temporal.workflow.getHandle(`${asked.id}.push`).result();
          const pushed = hook.at('/order-check');
          assert.ok(
            pushed.some((p) => stateOf(p) === 'TASK_STATE_INPUT_REQUIRED'),
            JSON.stringify(pushed.map(stateOf)),
          );
          const end = pushed.at(-1);
          assert.equal(end && stateOf(end), 'TASK_STATE_COMPLETED');
          assert.equal(end?.body.task?.artifacts?.[0]?.name, 'verdict');

          // The same service as an AG-UI run (docs/agui.md): the workflow's question is the run's
          // interrupt, its answer a resume; every event as @ag-ui/core's schemas say.
          const front = new HttpAgent({
            url: `${api.url}/agui/served/order-check`,
            headers: { Authorization: `Bearer ${ACME}` },
            threadId: `order-${randomUUID()}`,
          });
          front.addMessage({ id: 'm-1', role: 'user', content: 'Verify inspection-92 against order A1042' });
          const seen: string[] = [];
          let interrupts: { id: string; message?: string }[] = [];
          const subscriber = {
            onEvent: ({ event }: { event: { type: string } }) => {
              assert.ok(EventSchemas.safeParse(event).success, JSON.stringify(event));
              seen.push(event.type);
            },
            onRunFinishedEvent: (f: { outcome: string; interrupts?: { id: string; message?: string }[] }) =>
              void (interrupts = f.outcome === 'interrupt' ? (f.interrupts ?? []) : []),
          };
          await front.runAgent({}, subscriber);
          assert.match(interrupts[0]?.id ?? '', /^a2a-order-check-[0-9a-f]{32}\/ask-1$/);
          assert.match(interrupts[0]?.message ?? '', /Which product/);
          await front.runAgent(
            { resume: [{ interruptId: interrupts[0]?.id ?? '', status: 'resolved', payload: 'product SN-4471' }] },
            subscriber,
          );
          assert.equal(seen.at(-1), 'RUN_FINISHED');
          const served = front.state as { taskState: string; artifacts: { name?: string; agentText?: string }[] };
          assert.equal(served.taskState, 'TASK_STATE_COMPLETED');
          assert.equal(served.artifacts[0]?.name, 'verdict');

          // A second task, canceled while it asks: the workflow's wait ends, the task is CANCELED.
          const second = await wire(rpc.sendMessage(request('Verify inspection-92 against order A1042'), auth(ACME)));
          assert.equal(second.status.state, 'TASK_STATE_INPUT_REQUIRED');
          const canceled = await wire(rpc.cancelTask({ tenant: '', id: second.id, metadata: undefined }, auth(ACME)));
          assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
        } finally {
          await serving.close();
          await api.close();
        }
      });
    } finally {
      await connection.close();
      await native.close();
    }
  });
});
