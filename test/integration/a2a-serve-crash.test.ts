/**
 * `baton serve` as a process, with the worker in a process of its own: the official client streams a
 * task (and registers a webhook for it), the worker is SIGKILLed mid-task and the serving process is
 * SIGKILLed mid-stream; both come back, the client resubscribes, the task completes once, with its
 * result, and the webhook gets the end from the worker that took over.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Message, StreamResponse, Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { freePort } from '../../src/runtime/free-port';
import { CliProcess, runCli, userEnv } from '../../infra/cli-process';
import { stateOf, Webhook } from '../helpers/webhook';
import { kill, workerProcesses } from '../helpers/worker-process';

const TOKEN = 'serve-crash-token-0123456789';
const auth = { serviceParameters: { Authorization: `Bearer ${TOKEN}` } };

type Wire = { id: string; status: { state: string }; artifacts?: { name?: string }[] };

describe('baton serve', () => {
  it('refuses to start with nothing to serve, in one line', async () => {
    const wp = await workerProcesses({ 'supplier-qa': 'http://127.0.0.1:9' }, `serve-${randomUUID()}`);
    try {
      const run = await runCli(['serve', '--port', '0'], userEnv({ BATON_CONFIG: wp.config }));
      assert.equal(run.code, 1);
      assert.match(run.stderr, /nothing to serve: name the A2A agents Baton offers under serve\.services/);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await wp.close();
    }
  });

  it('a task survives its worker SIGKILLed and the serving process SIGKILLed mid-stream', async () => {
    const remoteTasks: string[] = [];
    const agent = await startAgentServer(supplierQa({ workMs: 8_000, onTaskCreated: (id) => remoteTasks.push(id) }));
    const port = await freePort();
    const wp = await workerProcesses({ 'supplier-qa': agent.url }, `serve-${randomUUID()}`, [
      'api:',
      '  callers: [{ tokenFromEnv: SERVE_TOKEN, tenant: acme, user: ops-1 }]',
      'serve:',
      '  pollMs: 100',
      '  push: { allowHttp: true, allowPrivateNetwork: true }',
      '  services:',
      '    supplier-check:',
      '      description: Checked supplier verification',
      '      skills: [{ id: verify, name: Verify, description: Verifies an inspection report }]',
      '      delegate: { agent: supplier-qa }',
    ]);
    const serve = async (): Promise<CliProcess> => {
      const p = new CliProcess(['serve', '--port', String(port)], userEnv({ BATON_CONFIG: wp.config, SERVE_TOKEN: TOKEN }));
      await p.waitFor('A2A agent supplier-check at');
      return p;
    };
    const hook = new Webhook();
    await hook.start();
    let worker = await wp.start();
    let server = await serve();
    try {
      const client: Client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }),
      ).createFromUrl(`http://127.0.0.1:${port}/a2a/supplier-check/`);
      const stream = client.sendMessageStream(
        {
          tenant: '',
          message: Message.fromJSON({
            messageId: `crash-${randomUUID()}`,
            role: 'ROLE_USER',
            parts: [{ text: 'Verify inspection-92 against order A1042, product SN-4471' }],
          }),
          configuration: undefined,
          metadata: undefined,
        },
        auth,
      );
      const first = await stream.next();
      const taskId = (StreamResponse.toJSON(first.value as StreamResponse) as { task: Wire }).task.id;
      assert.match(taskId, /^a2a-supplier-check-/);
      // A webhook too: its notifications come from the worker that is about to die.
      await client.createTaskPushNotificationConfig(
        { tenant: '', id: 'hook', taskId, url: `${hook.url}/hook`, token: '', authentication: undefined },
        auth,
      );

      // The worker dies while the remote task works; another takes over.
      await kill(worker);
      worker = await wp.start();
      // The serving process dies with the stream open: the client sees the stream break.
      const broken = (async () => {
        for (;;) if ((await stream.next()).done) return 'ended';
      })().catch(() => 'broken');
      await kill(server);
      assert.equal(await broken, 'broken');
      server = await serve();

      // Resubscribe (a snapshot first); if the task ended meanwhile, GetTask says how.
      let state = '';
      for (let attempt = 0; attempt < 10 && state !== 'TASK_STATE_COMPLETED'; attempt++) {
        try {
          for await (const event of client.resubscribeTask({ tenant: '', id: taskId }, auth)) {
            const json = StreamResponse.toJSON(event) as { task?: Wire; statusUpdate?: { status: { state: string } } };
            state = json.task?.status.state ?? json.statusUpdate?.status.state ?? state;
          }
        } catch (err) {
          if (!(err instanceof UnsupportedOperationError || (err as Error).cause instanceof UnsupportedOperationError)) throw err;
          state = (Task.toJSON(await client.getTask({ tenant: '', id: taskId, historyLength: 0 }, auth)) as Wire).status.state;
        }
      }
      assert.equal(state, 'TASK_STATE_COMPLETED');
      const done = Task.toJSON(await client.getTask({ tenant: '', id: taskId, historyLength: 0 }, auth)) as Wire;
      assert.equal(done.artifacts?.[0]?.name, 'verdict');
      assert.equal(remoteTasks.length, 1, 'one remote task, through both crashes');
      // The webhook had the end, with the verdict, from the worker that took over.
      const posts = await hook.until('/hook', (p) => p.some((x) => stateOf(x) === 'TASK_STATE_COMPLETED'), 'COMPLETED');
      const end = posts.find((x) => stateOf(x) === 'TASK_STATE_COMPLETED')?.body.task;
      assert.equal(end?.id, taskId);
      assert.equal(end?.artifacts?.[0]?.name, 'verdict');
      assert.ok(
        posts.every((p) => (p.body.task?.id ?? p.body.statusUpdate?.taskId) === taskId),
        'every notification is about the task',
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      worker.child.kill('SIGTERM');
      await worker.exited;
      await wp.close();
      await agent.close();
      await hook.close();
    }
  });
});
