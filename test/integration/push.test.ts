/**
 * Push mode on a real server: agents with push notifications call the webhook, which checks the
 * per-task token, answers at once, drops duplicates and signals the delegation, which reads the task
 * with GetTask. Waiting holds no activity; a lost push is caught by the backstop read; forged,
 * cross-task and replayed calls change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import pino from 'pino';
import { PushSchema } from '../../src/config/schema';
import { startAgentServer, type AgentServerOptions, type DemoAgentDefinition } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { skywayAir } from '../../src/demo/trip-agents';
import { pushToken } from '../../src/push/token';
import { startWebhook, type RunningWebhook } from '../../src/push/webhook';
import { pushSignal } from '../../workflows/messages';
import { batonFor, loopbackAgent, testServer, withWorker, type TestWorkerContext } from '../helpers/temporal';

const SECRET_ENV = 'BATON_TEST_PUSH_SECRET';
const secret = `push-secret-${process.pid}`;

describe('push notifications', () => {
  let webhook: RunningWebhook;
  let connection: Connection;
  before(async () => {
    process.env[SECRET_ENV] = secret;
    const { address, namespace } = await testServer();
    connection = await Connection.connect({ address });
    const { Client } = await import('@temporalio/client');
    const client = new Client({ connection, namespace });
    webhook = await startWebhook({
      secret,
      logger: pino({ level: 'warn' }, pino.destination(2)),
      deliver: (delegationId, taskId) => client.workflow.getHandle(delegationId).signal(pushSignal, { taskId }),
    });
  });
  after(async () => {
    await webhook.close();
    await connection.close();
  });

  const pushConfig = (backstopPoll = '1h') => PushSchema.parse({ url: webhook.url, secretFromEnv: SECRET_ENV, backstopPoll });

  async function withPushAgent<T>(
    def: DemoAgentDefinition,
    server: AgentServerOptions,
    backstop: string,
    fn: (ctx: TestWorkerContext, gets: () => number) => Promise<T>,
  ): Promise<T> {
    let gets = 0;
    const agent = await startAgentServer(
      { ...def, push: true },
      { ...server, holdResponse: (method) => ((gets += method === 'GetTask' ? 1 : 0), 0) },
    );
    try {
      return await withWorker({ [def.name]: loopbackAgent(agent.url, { observe: 'auto' }) }, (ctx) => fn(ctx, () => gets), {
        push: pushConfig(backstop),
      });
    } finally {
      await agent.close();
    }
  }

  const pushSignals = async (ctx: TestWorkerContext, id: string): Promise<number> =>
    ((await ctx.client.workflow.getHandle(id).fetchHistory()).events ?? []).filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'batonPush',
    ).length;

  it('budgets backstop reads by time: they go on past maxRemoteCalls, and maxWait ends them', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    try {
      await withPushAgent(skywayAir({ workMs: 0, hold: () => held }), { pushFault: () => 'drop' }, '1s', async (ctx) => {
        const baton = batonFor(ctx);
        // The card, the send, the registration and the first read leave 2 of 6 calls: 4 backstop reads would once have broken it.
        const id = await baton.start({
          agent: 'skyway-air',
          parts: [{ text: 'Hold a seat to Tromsø' }],
          contract: { maxRemoteCalls: 6, maxWait: '8s' },
        });
        const past = await baton.until(id, (r) => (r.pacedReads ?? 0) >= 4 || r.status === 'SETTLED', 100);
        assert.equal(past.status, 'REMOTE_ACTIVE', `paced reads past the call budget do not end it: ${past.outcome?.reasons.join('; ')}`);
        assert.ok(past.remoteCalls > 6, `the record still counts every call (${past.remoteCalls})`);
        const ended = await baton.result(id);
        assert.equal(ended.outcome?.kind, 'TIMED_OUT');
        assert.match(ended.outcome?.reasons[0] ?? '', /^waited 8s for the remote task, still TASK_STATE_WORKING \(contract maxWait\)$/);
        assert.equal(ended.remote.state, 'TASK_STATE_CANCELED', 'and the remote task is cancelled');
      });
    } finally {
      release();
    }
  });

  it('follows a task by push, holding no activity while the agent works', async () => {
    await withPushAgent(skywayAir({ workMs: 1_500 }), {}, '1h', async (ctx, gets) => {
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Book a flight to Helsinki' }] });
      await baton.until(id, (r) => r.status === 'REMOTE_ACTIVE' && r.agent.observe === 'push', 20);
      // Registered and read once; now only a condition waits.
      let pending = 1;
      for (let i = 0; i < 100 && pending > 0; i++)
        pending = (await ctx.client.workflow.getHandle(id).describe()).raw.pendingActivities?.length ?? 0;
      assert.equal(pending, 0, 'no activity is running while the delegation waits for a push');
      assert.equal((await baton.show(id)).status, 'REMOTE_ACTIVE', 'and it is still waiting, not finished');
      const record = await baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      assert.equal(record.agent.observe, 'push');
      assert.ok((await pushSignals(ctx, id)) >= 1, 'the webhook signalled the delegation');
      assert.ok(gets() <= 1 + (await pushSignals(ctx, id)), `one GetTask per push at most, plus the first read (${gets()})`);
    });
  });

  it('catches a lost push with the backstop read', async () => {
    await withPushAgent(skywayAir({ workMs: 300 }), { pushFault: () => 'drop' }, '1s', async (ctx) => {
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Book a flight to Helsinki' }] });
      const record = await baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      assert.equal(await pushSignals(ctx, id), 0, 'no push arrived; the backstop read found the end');
    });
  });

  it('processes a duplicated push once', async () => {
    const before = { ...webhook.stats };
    await withPushAgent(skywayAir({ workMs: 300 }), { pushFault: () => 'duplicate' }, '1h', async (ctx) => {
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Book a flight to Helsinki' }] });
      assert.equal((await baton.result(id)).outcome?.kind, 'ACCEPTED');
      const signals = await pushSignals(ctx, id);
      assert.ok(signals >= 1);
      assert.ok(webhook.stats.duplicates - before.duplicates >= signals, 'every push came twice and its copy was dropped');
    });
  });

  it('rejects forged, cross-task and replayed pushes; changes nothing; accepts the older token header', async () => {
    await withPushAgent(supplierQa({ workMs: 50 }), {}, '1h', async (ctx) => {
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
      const waiting = await baton.until(id, (r) => r.status === 'WAITING_INPUT', 20);
      const taskId = waiting.remote.taskId ?? '';
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${webhook.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/a2a+json', ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
      const completed = { statusUpdate: { taskId, contextId: waiting.remote.contextId, status: { state: 'TASK_STATE_COMPLETED' } } };
      const at = `/push/${encodeURIComponent(id)}`;
      const before = await pushSignals(ctx, id);

      const refusals: [string, Response][] = [
        ['no token', await post(at, completed)],
        ['a forged token', await post(at, completed, { authorization: 'Bearer forged' })],
        ["another task's token", await post(at, completed, { authorization: `Bearer ${pushToken(secret, id, 'other-task')}` })],
        ["another delegation's token", await post(at, completed, { authorization: `Bearer ${pushToken(secret, 'dlg-other', taskId)}` })],
        ['a token under another secret', await post(at, completed, { authorization: `Bearer ${pushToken('guess', id, taskId)}` })],
        [
          'a body naming another task',
          await post(
            at,
            { statusUpdate: { ...completed.statusUpdate, taskId: 'other-task' } },
            { authorization: `Bearer ${pushToken(secret, id, taskId)}` },
          ),
        ],
        ['a body that is not JSON', await post(at, '{nope', { authorization: `Bearer ${pushToken(secret, id, taskId)}` })],
      ];
      for (const [what, res] of refusals) assert.ok(res.status === 401 || res.status === 400, `${what}: ${res.status}`);
      assert.equal(await pushSignals(ctx, id), before, 'refused pushes reach no workflow');

      const valid = await post(at, completed, { authorization: `Bearer ${pushToken(secret, id, taskId)}` });
      assert.equal(valid.status, 202);
      const replayed = await post(at, completed, { authorization: `Bearer ${pushToken(secret, id, taskId)}` });
      assert.equal(replayed.status, 200);
      assert.deepEqual(await replayed.json(), { status: 'duplicate' });
      const legacy = await post(
        at,
        { kind: 'status-update', taskId, status: { state: 'working' } },
        { 'x-a2a-notification-token': pushToken(secret, id, taskId) },
      );
      assert.equal(legacy.status, 202, 'X-A2A-Notification-Token is accepted');
      let after = before;
      for (let i = 0; i < 100 && after < before + 2; i++) after = await pushSignals(ctx, id);
      assert.equal(after, before + 2, 'the valid push and the legacy one were delivered once each; the replay was not');
      // The pushed "COMPLETED" was only a hint: the task as the agent has it still waits for input.
      const still = await baton.show(id);
      assert.equal(still.status, 'WAITING_INPUT');
      assert.equal(still.pending?.requestId, waiting.pending?.requestId);
      assert.equal(still.outcome, undefined);
      await baton.answer(id, waiting.pending?.requestId ?? '', [{ text: 'SN-4471' }]);
      assert.equal((await baton.result(id)).outcome?.kind, 'ACCEPTED');
    });
  });
});
