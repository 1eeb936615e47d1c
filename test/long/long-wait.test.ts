/**
 * Push delegations that wait 60 days, in seconds, on Temporal's time-skipping test server, on the
 * default contract (500 remote calls, 90 days of waiting): the backstop reads every 10 minutes are
 * budgeted by time, not by calls, so a delegation whose pushes are lost for two months still ends
 * ACCEPTED when a push comes, and every run stays under the continue-as-new threshold; one whose
 * `maxWait` passes ends TIMED_OUT, with the truth about its remote task (cancelled) on the record.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { loopbackAgentEntry, PushSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { skywayAir } from '../../src/demo/trip-agents';
import { startWebhook, type RunningWebhook } from '../../src/push/webhook';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { createBatonWorker } from '../../src/runtime/worker';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS } from '../../src/shared/delegation-carry';
import { pushSignal } from '../../workflows/messages';
import { runsOf, testBundle } from '../helpers/temporal';
import { clockHeldDuringActivities, timeSkippingEnvironment } from '../helpers/time-skipping';

const SECRET_ENV = 'BATON_TEST_LONG_WAIT_SECRET';
const DAYS = 60;

describe('a two-month wait on the default contract', () => {
  let env: TestWorkflowEnvironment;
  let agent: RunningAgent;
  let webhook: RunningWebhook;
  /** The agent's pushes are all lost, and its tasks held open, until the test releases them. */
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  let pushesLost = true;
  before(async () => {
    installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
    env = await timeSkippingEnvironment();
    const secret = `long-wait-${process.pid}`;
    process.env[SECRET_ENV] = secret;
    agent = await startAgentServer(
      { ...skywayAir({ workMs: 0, hold: () => released }), push: true },
      { pushFault: () => (pushesLost ? 'drop' : 'send') },
    );
    const client = env.client;
    webhook = await startWebhook({
      secret,
      logger: pino({ level: 'warn' }, pino.destination(2)),
      deliver: (delegationId, taskId) => client.workflow.getHandle(delegationId).signal(pushSignal, { taskId }),
    });
  });
  after(async () => {
    release();
    await agent?.close();
    await webhook?.close();
    await env?.teardown();
  });

  it(`reads every 10 minutes for ${DAYS} days on the default contract, then accepts on the push`, async () => {
    const namespace = env.namespace ?? 'default';
    const worker = await createBatonWorker({
      connection: env.nativeConnection,
      namespace,
      taskQueue: 'long-wait',
      config: {
        // The default contract (500 calls, 90 days of waiting) and continue-as-new threshold (4,000 events);
        // a backstop read every 10 minutes rather than 5, so two months take minutes, not ten.
        agents: { 'skyway-air': loopbackAgentEntry(agent.url, { observe: 'auto' }) },
        push: PushSchema.parse({ url: webhook.url, secretFromEnv: SECRET_ENV, backstopPoll: '10m' }),
      },
      logger: pino({ level: 'warn' }, pino.destination(2)),
      workflowBundle: await testBundle(),
      workerOptions: { interceptors: clockHeldDuringActivities(env) },
    });
    await worker.runUntil(async () => {
      const baton = new BatonClient(env.client.connection, {
        namespace,
        taskQueue: 'long-wait',
        caller: { tenant: 'acme', user: 'ops-1' },
      });
      const accepted = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Hold a seat to Rovaniemi' }] });
      const timedOut = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Hold a seat to Inari' }], contract: { maxWait: '2d' } });
      await env.sleep(`${DAYS}d`);

      const waiting = await baton.show(accepted);
      assert.equal(waiting.status, 'REMOTE_ACTIVE', 'still following the remote task after two months');
      assert.deepEqual(waiting.contract, { maxInputRounds: 10, maxRemoteCalls: 500, maxWait: '90d' }, 'on the default contract');
      const ticks = DAYS * 24 * 6;
      // The first wait starts after the send, the registration and the first read: a tick or two less.
      assert.ok((waiting.pacedReads ?? 0) >= ticks - 3, `read every 10 minutes: ${waiting.pacedReads} backstop reads for ${ticks} ticks`);
      assert.ok((waiting.pacedReads ?? 0) > 500, 'many more reads than the call budget allows calls');
      // The card, the send, the push registration and the first read: no backstop read was tried twice.
      assert.ok(waiting.remoteCalls <= ticks + 10, `each tick read once: ${waiting.remoteCalls} calls for ${ticks} ticks`);
      assert.ok(waiting.remoteCalls - (waiting.pacedReads ?? 0) <= 10, 'the call budget holds only the calls the agent drove');
      const runs = await runsOf(env.client, accepted);
      const longest = Math.max(...runs.map((r) => r.events));
      assert.ok(runs.length >= 10, `continued as new along the way (${runs.length} runs)`);
      assert.ok(longest <= DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS + 20, `every run stays under the threshold (longest ${longest} events)`);
      assert.ok(runs.slice(0, -1).every((r) => r.continued));
      // A read that changes nothing writes no search attributes (a visibility write each, otherwise): a
      // run writes them once, and the SDK notes each patch it asks (TemporalChangeVersion); the first run
      // also shows the delegation start and its remote task.
      const upserts = runs.map((r) => r.upserts);
      assert.ok(
        upserts.every((n, i) => n <= (i === 0 ? 6 : 5)),
        `search attribute writes per run: ${upserts.join(', ')}`,
      );

      const limited = await baton.show(timedOut);
      assert.equal(limited.outcome?.kind, 'TIMED_OUT', 'maxWait ends a wait at its own pace');
      assert.match(limited.outcome?.reasons[0] ?? '', /^waited 2d for the remote task, still TASK_STATE_WORKING \(contract maxWait\)$/);
      assert.equal(limited.remote.state, 'TASK_STATE_CANCELED', 'and its remote task is cancelled');

      // Now the agent finishes, and its push gets through.
      pushesLost = false;
      release();
      const settled = await baton.until(accepted, (r) => r.status === 'SETTLED', 100);
      assert.equal(settled.outcome?.kind, 'ACCEPTED', settled.outcome?.reasons.join('; '));
      assert.equal(settled.remote.taskId, waiting.remote.taskId);
      const pushes = await pushSignalsIn(env, accepted);
      assert.ok(pushes >= 1, 'the push, not a backstop read, brought the result');
      console.log(
        `${DAYS} days: ${runs.length} runs, longest ${longest} events, ${waiting.remoteCalls} calls (${waiting.pacedReads} paced)`,
      );
    });
  });
});

/** Push signals in the delegation's latest run. */
async function pushSignalsIn(env: TestWorkflowEnvironment, id: string): Promise<number> {
  const history = await env.client.workflow.getHandle(id).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'batonPush').length;
}
