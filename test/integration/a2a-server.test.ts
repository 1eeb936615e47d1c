/**
 * Baton serving A2A: the official JavaScript client against a Baton-served agent (a durable gateway
 * in front of supplier-qa), over JSON-RPC and HTTP+JSON, on a real Temporal server and worker.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { execFile } from 'node:child_process';
import { format, promisify } from 'node:util';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AgentCard, Message, StreamResponse, Task, verifyAgentCardSignature } from '@a2a-js/sdk';
import type { SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ConfigSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { freePort } from '../../src/runtime/free-port';
import { projectRoot } from '../../src/runtime/project-root';
import type { RunningApi } from '../../src/http/api-server';
import { servedTaskId } from '../../src/served-tasks/task-id';
import { WorkflowNotFoundError } from '@temporalio/client';
import { BINDINGS, PIPELINE, serveForTest, TASK_ID_KEY, type Binding, SKILLS, SUPPLIER_CHECK } from '../helpers/served';
import { batonFor, loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';
const auth = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

type WireTask = {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
  artifacts?: { name?: string; parts: { data?: unknown }[] }[];
  metadata?: Record<string, unknown>;
};
const wire = (t: Task): WireTask => Task.toJSON(t) as WireTask;

let seq = 0;
const messageId = (label: string): string => `${label}-${process.pid}-${++seq}`;

function request(
  text: string,
  opts: { id?: string; taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  return {
    tenant: '',
    message: Message.fromJSON({
      messageId: opts.id ?? messageId('m'),
      role: 'ROLE_USER',
      parts: [{ text }],
      taskId: opts.taskId ?? '',
      contextId: opts.contextId ?? '',
    }),
    configuration: {
      acceptedOutputModes: [],
      returnImmediately: opts.returnImmediately ?? false,
      historyLength: 0,
      taskPushNotificationConfig: undefined,
    },
    metadata: undefined,
  };
}

async function asTask(result: Promise<Message | Task>): Promise<WireTask> {
  const r = await result;
  assert.ok('status' in r, 'a served agent answers with a Task');
  return wire(r);
}

/** ListTasks in one context, as the caller `token` names. */
const listIn = (client: Client, contextId: string, token: string, statusTimestampAfter?: string) =>
  client.listTasks(
    {
      tenant: '',
      contextId,
      status: 0,
      pageSize: 10,
      pageToken: '',
      historyLength: 0,
      statusTimestampAfter,
      includeArtifacts: false,
    },
    auth(token),
  );

const execFileAsync = promisify(execFile);

/** The key served cards are signed with; the registry entry of Baton's own agent pins its public half. */
const SIGNING = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyFile = join(mkdtempSync(join(tmpdir(), 'baton-serve-key-')), 'card-key.pem');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return { keyFile, kid: 'baton-serve-test', publicJwk: publicKey.export({ format: 'jwk' }) as Record<string, unknown> };
})();

const FULL = 'Verify inspection-92 against order A1042, product SN-4471';

describe('Baton serves A2A', () => {
  const remoteTasks: string[] = [];
  let fast: RunningAgent;
  let slow: RunningAgent;
  let steady: RunningAgent;
  before(async () => {
    fast = await startAgentServer(supplierQa({ workMs: 30, onTaskCreated: (id) => remoteTasks.push(id) }));
    slow = await startAgentServer(supplierQa({ workMs: 120_000 }));
    // Works past the first send's read-after-send window (1 s), so a served stream sees the task change.
    steady = await startAgentServer(supplierQa({ workMs: 1_500 }));
  });
  after(async () => {
    await fast.close();
    await slow.close();
    await steady.close();
  });

  const serving = async (
    fn: (ctx: TestWorkerContext, api: RunningApi, connect: (service: string, binding: Binding) => Promise<Client>) => Promise<void>,
  ) => {
    // The port is chosen first: Baton's own served agent is in the registry too (a pipeline calling a pipeline).
    const apiPort = await freePort();
    const grpcPort = await freePort();
    const agents = {
      'supplier-qa': loopbackAgent(fast.url),
      'slow-qa': loopbackAgent(slow.url),
      'steady-qa': loopbackAgent(steady.url),
      'baton-check': loopbackAgent(`http://127.0.0.1:${apiPort}/a2a/supplier-check/.well-known/agent-card.json`, {
        auth: { fromEnv: 'A2A_SERVER_TEST_TOKEN', scheme: 'Bearer' },
        signature: { keys: [{ kid: SIGNING.kid, jwk: SIGNING.publicJwk }] },
      }),
      // The same served agent, called over gRPC: its gRPC port is another origin, trusted by name.
      'baton-check-grpc': loopbackAgent(`http://127.0.0.1:${apiPort}/a2a/supplier-check/.well-known/agent-card.json`, {
        auth: { fromEnv: 'A2A_SERVER_TEST_TOKEN', scheme: 'Bearer' },
        signature: { keys: [{ kid: SIGNING.kid, jwk: SIGNING.publicJwk }] },
        binding: 'GRPC',
        allowedOrigins: [`http://127.0.0.1:${grpcPort}`],
      }),
    };
    process.env.A2A_SERVER_TEST_TOKEN = ACME;
    await withWorker(agents, async (ctx) => {
      const config = ConfigSchema.parse({
        api: { rateLimit: { requestsPerMinute: 6000, burst: 1000 } },
        serve: {
          pollMs: 50,
          maxRequestBytes: 64 * 1024,
          grpc: { listen: { host: '127.0.0.1', port: grpcPort } },
          signing: { privateKeyFile: SIGNING.keyFile, kid: SIGNING.kid },
          services: {
            'supplier-check': SUPPLIER_CHECK,
            'slow-check': { description: 'A verification that takes long', skills: SKILLS, delegate: { agent: 'slow-qa' } },
            'steady-check': { description: 'A verification that takes a moment', skills: SKILLS, delegate: { agent: 'steady-qa' } },
            // A pipeline: the caller's request is inspected, then a second check runs on the same order.
            pipeline: PIPELINE,
          },
        },
      });
      const served = await serveForTest(ctx, { ...config, agents }, { acme: ACME, globex: GLOBEX }, apiPort);
      try {
        await fn(ctx, served.api, served.connect);
      } finally {
        await served.close();
      }
    });
  };

  for (const binding of BINDINGS) {
    it(`${binding}: blocking send, a retried send, a question answered on the same task, a stream`, async () => {
      await serving(async (_ctx, api, connect) => {
        const card = (await (await fetch(`${api.url}/a2a/supplier-check/.well-known/agent-card.json`)).json()) as {
          supportedInterfaces: { url: string; protocolBinding: string; tenant?: string }[];
          securitySchemes: Record<string, unknown>;
        };
        // One gRPC server serves every agent: the interface's tenant names this one.
        const grpcAddress = card.supportedInterfaces[2]?.url ?? '';
        assert.match(grpcAddress, /^127\.0\.0\.1:\d+$/);
        assert.deepEqual(
          card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.tenant ?? '']),
          [
            ['JSONRPC', `${api.url}/a2a/supplier-check/jsonrpc`, ''],
            ['HTTP+JSON', `${api.url}/a2a/supplier-check/rest`, ''],
            ['GRPC', grpcAddress, 'supplier-check'],
          ],
        );
        // In A2A's JSON form (what every SDK reads), never the JS SDK's internal `$case` objects.
        assert.deepEqual(card.securitySchemes, {
          bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'a token Baton issued to the caller (api.callers)' } },
        });
        assert.equal(JSON.stringify(card).includes('$case'), false);
        const client = await connect('supplier-check', binding);
        assert.equal(client.transport.protocolName, binding);

        // Blocking: the answer is the accepted result, artifacts and all.
        const remoteBefore = remoteTasks.length;
        const sent = request(FULL);
        const done = await asTask(client.sendMessage(sent, auth(ACME)));
        assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
        assert.match(done.id, /^a2a-supplier-check-[0-9a-f]{32}$/);
        assert.equal(done.metadata?.batonOutcome, 'ACCEPTED');
        assert.equal(done.artifacts?.[0]?.name, 'verdict');
        assert.deepEqual((done.artifacts?.[0]?.parts[0]?.data as { verdict?: string }).verdict, 'pass');

        // The same message again (a response lost in transit): the same task, no second remote task.
        const again = await asTask(client.sendMessage(sent, auth(ACME)));
        assert.equal(again.id, done.id);
        assert.equal(again.status.state, 'TASK_STATE_COMPLETED');
        assert.equal(remoteTasks.length, remoteBefore + 1, 'one remote task for the message sent twice');
        // Sent again naming another context, it is still the task it started, in the context it started in.
        const elsewhere = await asTask(
          client.sendMessage(request(FULL, { id: sent.message?.messageId ?? '', contextId: `other-${done.contextId}` }), auth(ACME)),
        );
        assert.equal(elsewhere.id, done.id);
        assert.equal(elsewhere.contextId, done.contextId, 'the context the task started in, not the one the retry named');

        // A terminal task takes no more messages.
        await assert.rejects(
          client.sendMessage(request('one more thing', { taskId: done.id }), auth(ACME)),
          (e) => e instanceof UnsupportedOperationError,
        );

        // The agent's question reaches the caller; the answer on the same task completes it.
        const asked = await asTask(client.sendMessage(request('Verify inspection-92 against order A1042'), auth(ACME)));
        assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
        assert.match(asked.status.message?.parts[0]?.text ?? '', /serial number/);
        await assert.rejects(
          client.sendMessage(request('SN-4471', { taskId: asked.id, contextId: 'ctx-somewhere-else' }), auth(ACME)),
          (e) => e instanceof RequestMalformedError,
        );
        const answered = await asTask(client.sendMessage(request('SN-4471', { taskId: asked.id, contextId: asked.contextId }), auth(ACME)));
        assert.equal(answered.id, asked.id);
        assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
        assert.equal(answered.contextId, asked.contextId);

        // A stream: the task first, then its changes, the artifact before the COMPLETED status. (A task
        // that ends before the stream's first read is one event: the ended task.)
        const kinds: string[] = [];
        let last: unknown;
        const steadyClient = await connect('steady-check', binding);
        for await (const event of steadyClient.sendMessageStream(request(FULL), auth(ACME))) {
          const json = StreamResponse.toJSON(event) as Record<string, { status?: { state: string } }>;
          const kind = Object.keys(json)[0] as string;
          kinds.push(kind === 'statusUpdate' ? `status:${json.statusUpdate?.status?.state}` : kind);
          last = json;
        }
        assert.equal(kinds[0], 'task');
        assert.deepEqual(kinds.slice(-2), ['artifactUpdate', 'status:TASK_STATE_COMPLETED']);
        assert.ok(last);
      });
    });
  }

  for (const binding of BINDINGS) {
    it(`${binding}: a served graph asks its node's question, takes the answer, completes; another is canceled; ListTasks by context`, async () => {
      await serving(async (_ctx, _api, connect) => {
        const client = await connect('pipeline', binding);
        const asked = await asTask(client.sendMessage(request('Verify inspection-92 against order A1042'), auth(ACME)));
        assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(asked.status));
        assert.match(asked.id, /^a2a-pipeline-/);
        assert.match(asked.status.message?.parts[0]?.text ?? '', /serial number/);
        // The answer goes to the node that asked; the stream follows the graph to its end.
        const kinds: string[] = [];
        let artifact: { name?: string; parts: { data?: unknown }[] } | undefined;
        for await (const event of client.sendMessageStream(request('SN-4471', { taskId: asked.id }), auth(ACME))) {
          const json = StreamResponse.toJSON(event) as {
            task?: unknown;
            statusUpdate?: { status: { state: string } };
            artifactUpdate?: { artifact: { name?: string; parts: { data?: unknown }[] } };
          };
          if (json.artifactUpdate) artifact = json.artifactUpdate.artifact;
          kinds.push(json.task ? 'task' : json.statusUpdate ? `status:${json.statusUpdate.status.state}` : 'artifactUpdate');
        }
        assert.equal(kinds[0], 'task');
        assert.deepEqual(kinds.slice(-2), ['artifactUpdate', 'status:TASK_STATE_COMPLETED']);
        // The end node's verdict: the second check's report, not the first one's.
        assert.equal(artifact?.name, 'verdict');
        assert.equal((artifact?.parts[0]?.data as { report?: string }).report, 'inspection-93');
        const done = wire(await client.getTask({ tenant: '', id: asked.id, historyLength: 0 }, auth(ACME)));
        assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
        assert.equal(done.metadata?.batonOutcome, 'ACCEPTED');
        assert.equal(done.artifacts?.length, 1);

        // A second graph task in the same context, canceled while its node asks; ListTasks by that context shows both.
        const second = await asTask(
          client.sendMessage(request('Verify inspection-92 against order A1042', { contextId: asked.contextId }), auth(ACME)),
        );
        assert.equal(second.status.state, 'TASK_STATE_INPUT_REQUIRED');
        const canceled = wire(await client.cancelTask({ tenant: '', id: second.id, metadata: undefined }, auth(ACME)));
        assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
        let listed: Record<string, string> = {};
        for (let i = 0; i < 100 && Object.keys(listed).length < 2; i++) {
          const page = await listIn(client, asked.contextId, ACME);
          listed = Object.fromEntries(page.tasks.map((t) => [t.id, wire(t).status.state]));
          if (Object.keys(listed).length < 2) await new Promise((r) => setTimeout(r, 100));
        }
        assert.deepEqual(listed, { [asked.id]: 'TASK_STATE_COMPLETED', [second.id]: 'TASK_STATE_CANCELED' });

        // Pages of one: the token of the first reads the second; it is good for its caller and query only.
        const one = (token: string, pageToken = '') =>
          client.listTasks(
            {
              tenant: '',
              contextId: asked.contextId,
              status: 0,
              pageSize: 1,
              pageToken,
              historyLength: 0,
              statusTimestampAfter: undefined,
              includeArtifacts: false,
            },
            auth(token),
          );
        const first = await one(ACME);
        assert.equal(first.tasks.length, 1);
        assert.ok(first.nextPageToken, 'a second page');
        const next = await one(ACME, first.nextPageToken);
        assert.deepEqual([...first.tasks, ...next.tasks].map((t) => t.id).sort(), [asked.id, second.id].sort());
        await assert.rejects(one(GLOBEX, first.nextPageToken), (e) => e instanceof RequestMalformedError, "another caller's token");
        const tampered = Buffer.from(first.nextPageToken, 'base64url');
        tampered[tampered.length - 1] ^= 1;
        await assert.rejects(one(ACME, tampered.toString('base64url')), (e) => e instanceof RequestMalformedError, 'a token altered');
      });
    });
  }

  it("the official JS client reads the card's scheme with its own parser and authenticates through its own handler", async () => {
    await serving(async (_ctx, api) => {
      const base = `${api.url}/a2a/supplier-check/`;
      const card = await new DefaultAgentCardResolver().resolve(base);
      const [required] = Object.keys(card.securityRequirements[0]?.schemes ?? {});
      assert.equal(required, 'bearer');
      const scheme = card.securitySchemes[required]?.scheme;
      assert.equal(scheme?.$case, 'httpAuthSecurityScheme', JSON.stringify(card.securitySchemes));
      const named = scheme?.$case === 'httpAuthSecurityScheme' ? scheme.value.scheme : '';
      assert.equal(named, 'Bearer');
      // The SDK's standard path: an AuthenticationHandler around fetch; the header as the card's scheme says.
      const fetchImpl = createAuthenticatingFetchWithRetry(fetch, {
        headers: () => Promise.resolve({ Authorization: `${named} ${ACME}` }),
        shouldRetryWithHeaders: () => Promise.resolve(undefined),
      });
      for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
        const client = await new ClientFactory(
          ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
            transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
            preferredTransports: [binding],
          }),
        ).createFromUrl(base);
        const done = await asTask(client.sendMessage(request(FULL)));
        assert.equal(done.status.state, 'TASK_STATE_COMPLETED', binding);
      }
      // Without the handler, the same call is refused: the token came from it.
      const bare = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }),
      ).createFromUrl(base);
      await assert.rejects(bare.sendMessage(request(FULL)), /401|Unauthorized|UNAUTHENTICATED|Bearer/i);
    });
  });

  it('the official Python client (a2a-sdk): send, stream to the question, answer on the same task', async () => {
    const python = join(projectRoot(), '.baton', 'tools', 'a2a-python-1.3.0', 'bin', 'python');
    assert.ok(existsSync(python), `no ${python}: run npm run setup -- --test (it installs a2a-sdk from PyPI)`);
    await serving(async (_ctx, api) => {
      // Asynchronously: this process serves the agent the script calls.
      const run = await execFileAsync(
        python,
        [join(projectRoot(), 'test', 'interop', 'python-client.py'), `${api.url}/a2a/pipeline`, ACME, messageId('py')],
        { encoding: 'utf8', timeout: 120_000 },
      ).catch((err: { stderr?: string; message: string }) => assert.fail(`the Python client failed: ${err.stderr ?? err.message}`));
      type Seen = { events: [string, string][]; taskId: string; artifacts: string[] };
      const seen = JSON.parse(run.stdout) as { card: { kind: string; scheme: string }; send: Seen; asked: Seen; answered: Seen };
      // Its own card parser reads the bearer scheme (the SDK's internal form read as empty).
      assert.deepEqual(seen.card, { kind: 'http_auth_security_scheme', scheme: 'Bearer' });
      assert.deepEqual(seen.send.events, [['task', 'TASK_STATE_COMPLETED']]);
      assert.deepEqual(seen.send.artifacts, ['verdict']);
      assert.equal(seen.asked.events[0]?.[0], 'task');
      // The question as a status update; or, when the agent asked within the task's first workflow task
      // (before the stream's first read), in the task itself, the stream's only event.
      const ask = seen.asked.events.at(-1);
      assert.ok(
        (ask?.[0] === 'status' || seen.asked.events.length === 1) && ask?.[1] === 'TASK_STATE_INPUT_REQUIRED',
        `the stream ends at the question: ${JSON.stringify(seen.asked.events)}`,
      );
      assert.match(seen.asked.taskId, /^a2a-pipeline-/);
      assert.equal(seen.answered.taskId, seen.asked.taskId, 'the answer went to the same task');
      assert.deepEqual(seen.answered.events.slice(-2), [
        ['artifact', 'verdict'],
        ['status', 'TASK_STATE_COMPLETED'],
      ]);
    });
  });

  it('Baton delegates to a Baton-served agent whose signed card it pins (a pipeline calling a pipeline)', async () => {
    await serving(async (ctx, api) => {
      const json = (await (await fetch(`${api.url}/a2a/supplier-check/.well-known/agent-card.json`)).json()) as never;
      const card = AgentCard.fromJSON(json);
      assert.equal(card.signatures.length, 1, 'the served card is signed');
      // Over the card as served (A2A's JSON form), as any SDK verifies it.
      await verifyAgentCardSignature(() => Promise.resolve(SIGNING.publicJwk as never))(json);
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'baton-check', parts: [{ text: FULL }] });
      const record = await baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
      // The remote task is the served one: a delegation in the same namespace, accepted there first.
      assert.match(record.remote.taskId ?? '', /^a2a-supplier-check-/);
      const inner = await baton.show(record.remote.taskId as string);
      assert.equal(inner.outcome?.kind, 'ACCEPTED');
      assert.equal(record.artifacts[0]?.name, 'verdict');

      // Over gRPC, with a question on the way: the answer goes out as a second turn on the same remote task.
      const viaGrpc = await baton.start({ agent: 'baton-check-grpc', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
      const asked = await baton.until(viaGrpc, (r) => r.pending !== null || r.outcome !== undefined);
      assert.equal(asked.agent.interface?.binding, 'GRPC');
      assert.equal(asked.agent.interface?.tenant, 'supplier-check');
      assert.equal(asked.pending?.kind, 'input', JSON.stringify(asked.outcome));
      await baton.answer(viaGrpc, asked.pending?.requestId ?? '', [{ text: 'SN-4471' }]);
      const answered = await baton.result(viaGrpc);
      assert.equal(answered.outcome?.kind, 'ACCEPTED', JSON.stringify(answered.outcome));
      assert.equal(answered.remote.taskId, asked.remote.taskId, 'one remote task, two turns');
    });
  });

  it('cancel, a cancel race with the end, subscribe, ListTasks by context, and callers kept apart', async () => {
    await serving(async (_ctx, _api, connect) => {
      const slowClient = await connect('slow-check', 'JSONRPC');
      const contextId = `ctx-order-${process.pid}`;
      const started = await asTask(slowClient.sendMessage(request(FULL, { contextId, returnImmediately: true }), auth(ACME)));
      assert.equal(started.contextId, contextId);
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(started.status.state), started.status.state);

      // Another tenant's task is not found, exactly like a missing one.
      await assert.rejects(
        slowClient.getTask({ tenant: '', id: started.id, historyLength: 0 }, auth(GLOBEX)),
        (e) => e instanceof TaskNotFoundError,
      );
      await assert.rejects(
        slowClient.getTask({ tenant: '', id: 'a2a-slow-check-nope', historyLength: 0 }, auth(ACME)),
        (e) => e instanceof TaskNotFoundError,
      );
      // Another service's task is not this one's.
      const other = await connect('supplier-check', 'HTTP+JSON');
      await assert.rejects(
        other.getTask({ tenant: '', id: started.id, historyLength: 0 }, auth(ACME)),
        (e) => e instanceof TaskNotFoundError,
      );

      // Subscribe: a snapshot first; the cancel ends the stream with CANCELED.
      const events: string[] = [];
      const subscription = (async () => {
        for await (const event of slowClient.resubscribeTask({ tenant: '', id: started.id }, auth(ACME))) {
          const json = StreamResponse.toJSON(event) as Record<string, { status?: { state: string } }>;
          const kind = Object.keys(json)[0] as string;
          events.push(kind === 'statusUpdate' ? `status:${json.statusUpdate?.status?.state}` : kind);
        }
      })();
      const second = await asTask(slowClient.sendMessage(request(FULL, { contextId, returnImmediately: true }), auth(ACME)));
      const canceled = wire(await slowClient.cancelTask({ tenant: '', id: started.id, metadata: undefined }, auth(ACME)));
      assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
      await subscription;
      assert.equal(events[0], 'task');
      assert.equal(events.at(-1), 'status:TASK_STATE_CANCELED');
      // Canceling again gives the canceled task; a completed one cannot be canceled.
      assert.equal(
        wire(await slowClient.cancelTask({ tenant: '', id: started.id, metadata: undefined }, auth(ACME))).status.state,
        'TASK_STATE_CANCELED',
      );
      const completed = await asTask(other.sendMessage(request(FULL), auth(ACME)));
      await assert.rejects(
        other.cancelTask({ tenant: '', id: completed.id, metadata: undefined }, auth(ACME)),
        (e) => e instanceof TaskNotCancelableError,
      );
      // A subscription to an ended task is refused (read it with GetTask).
      await assert.rejects(
        (async () => {
          for await (const _ of other.resubscribeTask({ tenant: '', id: completed.id }, auth(ACME))) void _;
        })(),
        (e) => e instanceof UnsupportedOperationError || (e as Error).cause instanceof UnsupportedOperationError,
      );

      // A refused subscription costs the server's log one line, however long an id the caller chose
      // (the SDK prints what the agent throws before a stream with console.error).
      const jsonRpc = await connect('supplier-check', 'JSONRPC');
      const printed = await consoleErrorsDuring(async () => {
        for (const id of [completed.id, `a2a-supplier-check-${'x'.repeat(5_000)}`])
          await assert.rejects(async () => {
            for await (const _ of jsonRpc.resubscribeTask({ tenant: '', id }, auth(ACME))) void _;
          });
      });
      const refusals = printed.filter((line) => line.startsWith('Pre-stream error'));
      assert.equal(refusals.length, 2, printed.join('\n'));
      assert.match(refusals[0] ?? '', /UnsupportedOperationError: task \S+ has ended \(TASK_STATE_COMPLETED\)/);
      assert.match(refusals[1] ?? '', /TaskNotFoundError: no task a2a-supplier-check-x{181}…\]$/);
      for (const line of refusals) assert.ok(!line.includes('\n') && line.length < 600, line);

      // ListTasks by context: both tasks of that context, the caller's own only (visibility is eventually consistent).
      let listed: string[] = [];
      for (let i = 0; i < 100 && listed.length < 2; i++) {
        const page = await listIn(slowClient, contextId, ACME);
        listed = page.tasks.map((t) => t.id).sort();
        if (listed.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(listed, [started.id, second.id].sort());
      const foreign = await listIn(slowClient, contextId, GLOBEX);
      assert.equal(foreign.tasks.length, 0);
      // Nothing changed after a time to come; a time that is not one is refused.
      assert.equal((await listIn(slowClient, contextId, ACME, '2999-01-01T00:00:00Z')).tasks.length, 0);
      await assert.rejects(listIn(slowClient, contextId, ACME, 'yesterday'), (e) => e instanceof RequestMalformedError);
      await slowClient.cancelTask({ tenant: '', id: second.id, metadata: undefined }, auth(ACME));
    });
  });

  it('bad input: no token, an oversized message, a malformed message; nothing is started', async () => {
    await serving(async (ctx, api, connect) => {
      const rpc = (body: unknown, token?: string) =>
        fetch(`${api.url}/a2a/supplier-check/jsonrpc`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
      const send = (parts: unknown[], id = messageId('bad')) => ({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: id, role: 'ROLE_USER', parts } },
      });
      const unauthenticated = await rpc(send([{ text: 'hello' }]));
      assert.equal(unauthenticated.status, 401);
      const wrong = await rpc(send([{ text: 'hello' }]), 'not-a-token-of-this-server');
      assert.equal(wrong.status, 401);
      const bigId = messageId('big');
      const big = await rpc(send([{ text: 'x'.repeat(100 * 1024) }], bigId), ACME);
      assert.equal(big.status, 413);
      assert.equal(((await big.json()) as { error?: { code: number } }).error?.code, -32600, 'in the JSON-RPC envelope');
      // JSON-RPC's own codes: a body that is not JSON, a JSON value that is not a request object.
      const raw = async (body: string, contentType = 'application/json') =>
        (await (
          await fetch(`${api.url}/a2a/supplier-check/jsonrpc`, {
            method: 'POST',
            headers: { 'Content-Type': contentType, 'A2A-Version': '1.0', Authorization: `Bearer ${ACME}` },
            body,
          })
        ).json()) as { jsonrpc?: string; id?: unknown; error?: { code: number } };
      // A request of another content type: A2A's ContentTypeNotSupported.
      assert.equal((await raw(JSON.stringify(send([{ text: 'hi' }])), 'text/plain')).error?.code, -32005);
      const notJson = await raw('{"jsonrpc": "2.0", "method": ');
      assert.deepEqual([notJson.jsonrpc, notJson.id, notJson.error?.code], ['2.0', null, -32700]);
      for (const body of ['[1, 2]', '{"hello": "world"}', '[]']) assert.equal((await raw(body)).error?.code, -32600, body);
      // A GetTask without an id is invalid params, not a task that is not there.
      const noId = (await (await rpc({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: {} }, ACME)).json()) as {
        id?: number;
        error?: { code: number };
      };
      assert.deepEqual([noId.id, noId.error?.code], [7, -32602]);
      const malformedId = messageId('malformed');
      const malformed = (await (await rpc(send([{}], malformedId), ACME)).json()) as {
        error?: { code: number; message: string };
      };
      assert.equal(malformed.error?.code, -32602, JSON.stringify(malformed));
      const asAgent = (await (
        await rpc(
          { ...send([{ text: 'hi' }]), params: { message: { messageId: 'x1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } } },
          ACME,
        )
      ).json()) as {
        error?: { code: number };
      };
      assert.equal(asAgent.error?.code, -32602);
      const unknownTask = (await (
        await rpc(
          {
            ...send([{ text: 'hi' }]),
            params: { message: { messageId: 'x2', role: 'ROLE_USER', taskId: 'a2a-supplier-check-0', parts: [{ text: 'hi' }] } },
          },
          ACME,
        )
      ).json()) as {
        error?: { code: number };
      };
      assert.equal(unknownTask.error?.code, -32001);
      // The ids those messages would have started are free.
      for (const id of [bigId, malformedId, 'x1']) {
        const taskId = servedTaskId(TASK_ID_KEY, 'supplier-check', { tenant: 'acme', user: 'ops-1' }, id);
        await assert.rejects(ctx.client.workflow.getHandle(taskId).describe(), (e) => e instanceof WorkflowNotFoundError);
      }
      // gRPC: no token, UNAUTHENTICATED before the service sees the call.
      const grpcClient = await connect('supplier-check', 'GRPC');
      await assert.rejects(grpcClient.getTask({ tenant: '', id: 'a2a-supplier-check-0', historyLength: 0 }), (e) =>
        /Bearer/.test((e as Error).message),
      );
      await assert.rejects(
        grpcClient.getTask({ tenant: '', id: 'a2a-supplier-check-0', historyLength: 0 }, auth(ACME)),
        (e) => e instanceof TaskNotFoundError,
      );
      const missing = await fetch(`${api.url}/a2a/no-such-agent/.well-known/agent-card.json`);
      assert.equal(missing.status, 404);
    });
  });
});

/** What `console.error` printed while `fn` ran, a string per call. */
async function consoleErrorsDuring(fn: () => Promise<void>): Promise<string[]> {
  const printed: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void printed.push(format(...args));
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return printed;
}
