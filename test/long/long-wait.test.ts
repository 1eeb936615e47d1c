/**
 * A push delegation that waits 30 days, in seconds, on Temporal's time-skipping test server: with the
 * default backstop (a read every 5 minutes) and the default threshold, every run of it stays under
 * the threshold, and after a month it still answers a cancel with the truth about the remote task.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { loopbackAgentEntry, PushSchema } from '../../src/config/schema';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { skywayAir } from '../../src/demo/trip-agents';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { createBatonWorker } from '../../src/runtime/worker';
import { DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS } from '../../src/shared/delegation-carry';
import { runsOf, testBundle } from '../helpers/temporal';
import { clockHeldDuringActivities, timeSkippingEnvironment } from '../helpers/time-skipping';

const SECRET_ENV = 'BATON_TEST_LONG_WAIT_SECRET';
const DAYS = 30;

describe('a month-long wait', () => {
  let env: TestWorkflowEnvironment;
  let agent: RunningAgent;
  before(async () => {
    installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
    env = await timeSkippingEnvironment();
    // An agent that works for longer than the test and whose pushes are all lost: only backstop reads see it.
    agent = await startAgentServer({ ...skywayAir({ workMs: 3_600_000 }), push: true }, { pushFault: () => 'drop' });
    process.env[SECRET_ENV] = `long-wait-${process.pid}`;
  });
  after(async () => {
    await agent?.close();
    await env?.teardown();
  });

  it(`reads a push delegation every 5 minutes for ${DAYS} days, every run under the threshold`, async () => {
    const namespace = env.namespace ?? 'default';
    const worker = await createBatonWorker({
      connection: env.nativeConnection,
      namespace,
      taskQueue: 'long-wait',
      config: {
        agents: { 'skyway-air': loopbackAgentEntry(agent.url, { observe: 'auto' }) },
        // The defaults: backstop 5m, continue-as-new after 4,000 events.
        push: PushSchema.parse({ url: 'http://127.0.0.1:9/', secretFromEnv: SECRET_ENV }),
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
      // A month of reads is more than the default budget of 500 calls (41 hours at one read per 5 minutes).
      const id = await baton.start({
        agent: 'skyway-air',
        parts: [{ text: 'Hold a seat to Rovaniemi' }],
        contract: { maxRemoteCalls: 20_000 },
      });
      await env.sleep(`${DAYS}d`);

      const waiting = await baton.show(id);
      assert.equal(waiting.status, 'REMOTE_ACTIVE', 'still following the remote task after a month');
      const reads = DAYS * 24 * 12;
      assert.ok(waiting.remoteCalls >= reads, `read at least every 5 minutes: ${waiting.remoteCalls} calls for ${reads} backstop ticks`);
      // The send, the push registration and a first read: no read was tried twice.
      assert.ok(waiting.remoteCalls <= reads + 10, `each tick read once: ${waiting.remoteCalls} calls for ${reads} backstop ticks`);
      const runs = await runsOf(env.client, id);
      const longest = Math.max(...runs.map((r) => r.events));
      assert.ok(runs.length >= 10, `continued as new along the way (${runs.length} runs)`);
      assert.ok(longest <= DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS + 20, `every run stays under the threshold (longest ${longest} events)`);
      assert.ok(runs.slice(0, -1).every((r) => r.continued));
      // A read that changes nothing writes no search attributes (a visibility write each, otherwise): a
      // run writes them once, and the SDK notes each patch it asks (TemporalChangeVersion).
      const upserts = runs.map((r) => r.upserts);
      assert.ok(
        upserts.every((n) => n <= 5),
        `search attribute writes per run: ${upserts.join(', ')}`,
      );

      const cancelled = await baton.cancel(id, 'no longer needed');
      assert.equal(cancelled.outcome?.kind, 'CANCELED');
      assert.equal(cancelled.remote.state, 'TASK_STATE_CANCELED', 'the remote task is cancelled, a month on');
      assert.equal(cancelled.remote.taskId, waiting.remote.taskId);
      console.log(`${DAYS} days: ${runs.length} runs, longest ${longest} events, ${waiting.remoteCalls} calls`);
    });
  });
});
