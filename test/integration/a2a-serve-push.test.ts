/**
 * Push notifications to the callers of Baton-served agents: the official JavaScript client registers
 * webhooks (inline with the message, and with CreateTaskPushNotificationConfig) over JSON-RPC,
 * HTTP+JSON and gRPC; a webhook this test runs receives each change of a served graph's task, with the
 * caller's token and credentials; a webhook that is down gets its notifications once it is back; one
 * that never answers, or refuses, has them recorded as undelivered. Real Temporal, worker and agents.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Message, Task, type SendMessageRequest, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ConfigSchema, ServeSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { pushWorkflowId } from '../../src/serve/caller-webhooks';
import { servedTaskId } from '../../src/served-tasks/task-id';
import type { TaskPushView } from '../../src/shared/task-push-types';
import { pushStateQuery } from '../../workflows/messages';
import { BINDINGS, PIPELINE, serveForTest, testPush, TASK_ID_KEY, type Binding, SUPPLIER_CHECK } from '../helpers/served';
import { stateOf, Webhook } from '../helpers/webhook';
import { historyText, loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

const ACME = 'acme-push-token-0123456789abcdef';
const GLOBEX = 'globex-push-token-0123456789abcdef';
const auth = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });
const KEY_ENV = 'A2A_PUSH_TEST_KEY';
process.env[KEY_ENV] = randomBytes(32).toString('base64');

let seq = 0;
const messageId = (label: string): string => `${label}-${process.pid}-${++seq}`;

function request(
  text: string,
  opts: { taskId?: string; id?: string; push?: Partial<TaskPushNotificationConfig>; returnImmediately?: boolean } = {},
): SendMessageRequest {
  return {
    tenant: '',
    message: Message.fromJSON({ messageId: opts.id ?? messageId('m'), role: 'ROLE_USER', parts: [{ text }], taskId: opts.taskId ?? '' }),
    configuration: {
      acceptedOutputModes: [],
      returnImmediately: opts.returnImmediately ?? true,
      historyLength: 0,
      taskPushNotificationConfig: opts.push
        ? { tenant: '', id: '', taskId: '', url: '', token: '', authentication: undefined, ...opts.push }
        : undefined,
    },
    metadata: undefined,
  };
}

/** The HTTP server of the test that is running. */
let apiUrl = '';

describe('Baton serves A2A: push notifications to callers', () => {
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

  const push = testPush(KEY_ENV);

  const serving = async (
    fn: (ctx: TestWorkerContext, connect: (service: string, binding: Binding) => Promise<Client>) => Promise<void>,
  ) => {
    const agents = { 'supplier-qa': loopbackAgent(agent.url) };
    const serve = ServeSchema.parse({ push, services: {} });
    await withWorker(
      agents,
      async (ctx) => {
        const config = ConfigSchema.parse({
          api: { rateLimit: { requestsPerMinute: 6000, burst: 1000 } },
          serve: {
            pollMs: 50,
            push,
            // Port 0: the server binds a free one and the card names it (a port chosen ahead can be taken meanwhile).
            grpc: { listen: { host: '127.0.0.1', port: 0 } },
            services: { 'supplier-check': SUPPLIER_CHECK, pipeline: PIPELINE },
          },
        });
        const served = await serveForTest(ctx, { ...config, agents }, { acme: ACME, globex: GLOBEX });
        apiUrl = served.api.url;
        try {
          await fn(ctx, served.connect);
        } finally {
          await served.close();
        }
      },
      { serve },
    );
  };

  for (const binding of BINDINGS) {
    it(`${binding}: a served graph's changes reach the caller's webhook, with its credentials, until the end`, async () => {
      await serving(async (ctx, connect) => {
        const client = await connect('pipeline', binding);
        const path = `/${binding.toLowerCase()}/${seq}`;
        const token = `task-token-${randomBytes(8).toString('hex')}`;
        const credentials = `webhook-secret-${randomBytes(8).toString('hex')}`;
        const sent = Task.toJSON(
          (await client.sendMessage(
            request('Verify inspection-92 against order A1042', {
              push: { url: `${hook.url}${path}`, token, authentication: { scheme: 'Bearer', credentials } },
            }),
            auth(ACME),
          )) as Task,
        ) as { id: string };
        assert.match(sent.id, /^a2a-pipeline-/);

        // The task as it is first, then its question.
        const asked = await hook.until(path, (p) => p.some((x) => stateOf(x) === 'TASK_STATE_INPUT_REQUIRED'), 'INPUT_REQUIRED');
        assert.ok(asked[0]?.body.task, 'a new webhook gets the task first');
        assert.equal(asked[0]?.body.task?.id, sent.id);
        for (const p of asked) {
          assert.equal(p.headers.authorization, `Bearer ${credentials}`);
          assert.equal(p.headers['x-a2a-notification-token'], token);
          assert.equal(p.headers['content-type'], 'application/a2a+json');
        }

        // A second webhook by CreateTaskPushNotificationConfig; list and get never give the secrets back.
        const second = await client.createTaskPushNotificationConfig(
          { tenant: '', id: 'second', taskId: sent.id, url: `${hook.url}${path}/second`, token: '', authentication: undefined },
          auth(ACME),
        );
        assert.equal(second.id, 'second');
        const listed = await client.listTaskPushNotificationConfig(
          { tenant: '', taskId: sent.id, pageSize: 10, pageToken: '' },
          auth(ACME),
        );
        assert.deepEqual(listed.configs.map((c) => c.url).sort(), [`${hook.url}${path}`, `${hook.url}${path}/second`].sort());
        const first = listed.configs.find((c) => c.url === `${hook.url}${path}`);
        assert.equal(first?.authentication?.scheme, 'Bearer');
        assert.equal(first?.authentication?.credentials, '');
        assert.equal(first?.token, '');
        const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'second' }, auth(ACME));
        assert.equal(got.url, `${hook.url}${path}/second`);
        // Another caller does not see the task's configs, nor can it add one.
        await assert.rejects(
          client.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 10, pageToken: '' }, auth(GLOBEX)),
          (e) => e instanceof TaskNotFoundError,
        );
        await assert.rejects(
          client.createTaskPushNotificationConfig(
            { tenant: '', id: '', taskId: sent.id, url: `${hook.url}/foreign`, token: '', authentication: undefined },
            auth(GLOBEX),
          ),
          (e) => e instanceof TaskNotFoundError,
        );
        await hook.until(`${path}/second`, (p) => p.length >= 1, 'the second webhook’s snapshot');
        await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'second' }, auth(ACME));
        await assert.rejects(
          client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'second' }, auth(ACME)),
          (e) => e instanceof TaskNotFoundError,
        );

        // The answer on the same task: the end arrives as the task, with the end node's artifact.
        await client.sendMessage(request('SN-4471', { taskId: sent.id }), auth(ACME));
        const all = await hook.until(path, (p) => p.some((x) => stateOf(x) === 'TASK_STATE_COMPLETED'), 'COMPLETED');
        const end = all.find((x) => stateOf(x) === 'TASK_STATE_COMPLETED');
        assert.equal(end?.body.task?.artifacts?.[0]?.name, 'verdict');
        assert.equal((end?.body.task?.artifacts?.[0]?.parts[0]?.data as { report?: string }).report, 'inspection-93');
        const states = all.map(stateOf);
        assert.ok(states.indexOf('TASK_STATE_INPUT_REQUIRED') < states.indexOf('TASK_STATE_COMPLETED'), states.join(', '));
        // The deleted webhook got nothing after its snapshot's time: never the end.
        assert.ok(!hook.at(`${path}/second`).some((x) => stateOf(x) === 'TASK_STATE_COMPLETED'));

        // The push workflow ends once the end is delivered; its history never held the secrets in clear.
        const view = (await ctx.client.workflow.getHandle(pushWorkflowId(sent.id)).result()) as TaskPushView;
        assert.equal(view.ended, true);
        assert.deepEqual(view.undelivered, []);
        const text = await historyText(ctx.client, pushWorkflowId(sent.id));
        assert.ok(!text.includes(token) && !text.includes(credentials), 'no token or credentials in history');
      });
    });
  }

  it('a webhook that is down gets its notifications in order once back; one that stays down or refuses has them recorded', async () => {
    await serving(async (ctx, connect) => {
      const client = await connect('supplier-check', 'JSONRPC');
      const base = `/delegation/${seq}`;
      // Down for the first two tries of its first notification, then up: the retries bring everything.
      let flakyCalls = 0;
      hook.answers.set(`${base}/flaky`, () => (++flakyCalls <= 2 ? 503 : 200));
      hook.answers.set(`${base}/down`, () => 503);
      hook.answers.set(`${base}/refuses`, () => 403);
      hook.answers.set(`${base}/deleted`, () => 503);
      const sent = Task.toJSON(
        (await client.sendMessage(
          request('Verify inspection-92 against order A1042', { push: { url: `${hook.url}${base}/ok` } }),
          auth(ACME),
        )) as Task,
      ) as { id: string };
      // Added while the task waits for its answer, so all three are owed the same notifications.
      await hook.until(`${base}/ok`, (p) => p.some((x) => stateOf(x) === 'TASK_STATE_INPUT_REQUIRED'), 'INPUT_REQUIRED');
      for (const name of ['flaky', 'down', 'refuses', 'deleted'])
        await client.createTaskPushNotificationConfig(
          { tenant: '', id: name, taskId: sent.id, url: `${hook.url}${base}/${name}`, token: '', authentication: undefined },
          auth(ACME),
        );
      // Deleted while its first notification waits for another try: that stops, and it is owed nothing more.
      await hook.until(`${base}/deleted`, (p) => p.length >= 1, 'the first try');
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'deleted' }, auth(ACME));
      await client.sendMessage(request('SN-4471', { taskId: sent.id }), auth(ACME));
      const view = (await ctx.client.workflow.getHandle(pushWorkflowId(sent.id)).result()) as TaskPushView;
      assert.equal(view.ended, true);

      // The flaky webhook: every notification the healthy one had since it was added, in order, none lost.
      const okStates = hook.at(`${base}/ok`).map(stateOf);
      const flaky = hook
        .at(`${base}/flaky`)
        .filter((_, i) => i >= 2)
        .map(stateOf);
      assert.equal(flaky.at(-1), 'TASK_STATE_COMPLETED');
      assert.deepEqual(flaky.slice(1), okStates.slice(okStates.length - (flaky.length - 1)), `ok: ${okStates}; flaky: ${flaky}`);
      assert.ok(!view.undelivered.some((u) => u.configId === 'flaky' || u.configId === 'ok'), JSON.stringify(view.undelivered));

      // Down for good: each notification tried 3 times, then recorded; a 403 is tried once.
      const down = view.undelivered.filter((u) => u.configId === 'down');
      const refused = view.undelivered.filter((u) => u.configId === 'refuses');
      assert.ok(down.length >= 2, JSON.stringify(view.undelivered));
      assert.equal(hook.at(`${base}/down`).length, down.length * 3);
      assert.match(down[0]?.reason ?? '', /answered 503/);
      assert.equal(hook.at(`${base}/refuses`).length, refused.length);
      assert.match(refused[0]?.reason ?? '', /answered 403/);
      // Both were owed the end, and the refusing one nothing the one that is down was not. (A change of
      // the task's fingerprint that its caller cannot see, seen between the two additions, is owed only
      // to the one added first: exact equality waits for notifications of visible changes only, #45.)
      const downOwed = down.map((u) => u.what);
      assert.equal(downOwed.at(-1), 'task');
      assert.equal(refused.at(-1)?.what, 'task');
      let from = 0;
      for (const what of refused.map((u) => u.what)) {
        from = downOwed.indexOf(what, from) + 1;
        assert.ok(from > 0, `refused ${JSON.stringify(refused)} within down ${JSON.stringify(down)}`);
      }
      assert.equal(view.delivered, hook.at(`${base}/ok`).length + hook.at(`${base}/flaky`).length - 2);
      assert.ok(
        hook.at(`${base}/deleted`).every((p) => p.body.task && stateOf(p) !== 'TASK_STATE_COMPLETED'),
        'never the end',
      );
      assert.ok(!view.configs.some((c) => c.id === 'deleted'));
      // The Query answers the same after the end (ListTaskPushNotificationConfigs reads it).
      const queried = await ctx.client.workflow.getHandle(pushWorkflowId(sent.id)).query(pushStateQuery);
      assert.deepEqual(queried.undelivered, view.undelivered);

      // After the push workflow closed, a delete still removes the config for good, and a second
      // delete of it succeeds; the others stay. Over HTTP+JSON the result is the empty object, 200.
      const rest = await connect('supplier-check', 'HTTP+JSON');
      const listed = async () =>
        (await rest.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 10, pageToken: '' }, auth(ACME))).configs
          .map((c) => c.id)
          .sort();
      const before = await listed();
      assert.equal(before.length, 4, before.join(', '));
      assert.ok(before.includes('down') && before.includes('flaky'), before.join(', '));
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${apiUrl}/a2a/supplier-check/rest/tasks/${sent.id}/pushNotificationConfigs/down`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${ACME}`, 'a2a-version': '1.0' },
        });
        assert.equal(res.status, 200, `delete ${i + 1}`);
        assert.deepEqual(await res.json(), {});
      }
      assert.deepEqual(
        await listed(),
        before.filter((id) => id !== 'down'),
      );
      await assert.rejects(
        rest.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'down' }, auth(ACME)),
        (e) => e instanceof TaskNotFoundError,
      );
      // The official client's own Delete takes the empty object too.
      await rest.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'flaky' }, auth(ACME));
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'flaky' }, auth(ACME));
      assert.deepEqual(
        await listed(),
        before.filter((id) => id !== 'down' && id !== 'flaky'),
      );

      // A config made after the push workflow closed: the end is sent to it once; the configs kept
      // before stay listed, and are not sent the end again.
      const okBefore = hook.at(`${base}/ok`).length;
      await rest.createTaskPushNotificationConfig(
        { tenant: '', id: 'late', taskId: sent.id, url: `${hook.url}${base}/late`, token: '', authentication: undefined },
        auth(ACME),
      );
      assert.deepEqual(await listed(), [...before.filter((id) => id !== 'down' && id !== 'flaky'), 'late'].sort());
      const late = await hook.until(`${base}/late`, (p) => p.length >= 1, 'the end, to the late webhook');
      assert.equal(stateOf(late[0]!), 'TASK_STATE_COMPLETED');
      const again = (await ctx.client.workflow.getHandle(pushWorkflowId(sent.id)).result()) as TaskPushView;
      assert.equal(again.ended, true);
      assert.equal(hook.at(`${base}/ok`).length, okBefore, 'the webhooks kept before are not sent the end again');
      assert.equal(hook.at(`${base}/late`).length, 1);
    });
  });

  it('bad push configs are refused with RequestMalformed, and nothing starts', async () => {
    await serving(async (ctx, connect) => {
      const client = await connect('supplier-check', 'HTTP+JSON');
      for (const url of ['http://169.254.169.254/latest', 'ftp://127.0.0.1/x', 'not a url', 'http://user:pw@127.0.0.1/x']) {
        const id = messageId('badpush');
        await assert.rejects(
          client.sendMessage(request('Verify inspection-92 against order A1042, product SN-4471', { id, push: { url } }), auth(ACME)),
          (e) => e instanceof RequestMalformedError,
          url,
        );
        const taskId = servedTaskId(TASK_ID_KEY, 'supplier-check', { tenant: 'acme', user: 'ops-1' }, id);
        await assert.rejects(ctx.client.workflow.getHandle(taskId).describe(), (e) => e instanceof WorkflowNotFoundError);
      }
      await assert.rejects(
        client.createTaskPushNotificationConfig(
          { tenant: '', id: '', taskId: 'a2a-supplier-check-0', url: `${hook.url}/x`, token: '', authentication: undefined },
          auth(ACME),
        ),
        (e) => e instanceof TaskNotFoundError,
      );
    });
  });
});
