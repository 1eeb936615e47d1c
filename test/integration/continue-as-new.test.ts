/**
 * Long waits with bounded history, on a real server: with `worker.continueAsNewAfterEvents` set low, a
 * delegation continues as new while it waits (for a person, for pushes) and goes on in the new run
 * with its pending request, turns, call budget and push registration; answers and pushes reach it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { PolicyRegistry } from '../../src/acceptance/policies';
import { PushSchema } from '../../src/config/schema';
import type { StartDelegation } from '../../src/client/baton-client';
import { startAgentServer, type AgentServerOptions, type RunningAgent } from '../../src/demo/agent-server';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { supplierQa } from '../../src/demo/supplier-qa';
import { skywayAir } from '../../src/demo/trip-agents';
import { startWebhook, type RunningWebhook } from '../../src/push/webhook';
import { pushSignal } from '../../workflows/messages';
import { HistoryFollower } from '../../src/client/history-follower';
import { batonFor, loopbackAgent, runsOf, testServer, withWorker, type WorkflowRun } from '../helpers/temporal';

const ASK = [{ text: 'Verify inspection report inspection-92 against order A1042', mediaType: 'text/plain' }];
const COMPLETE = [{ text: 'Verify inspection report inspection-92 against order A1042 for SN-4471', mediaType: 'text/plain' }];
const LOW = 8;

/** Waits until the delegation has run in at least `count` runs (the last one still open). */
async function untilRuns(client: Client, id: string, count: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await runsOf(client, id)).length >= count) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the delegation never reached ${count} runs`);
}

describe('continue-as-new', () => {
  let qa: RunningAgent;
  before(async () => {
    // Works past the first send's read-after-send window (1 s): the wait then begins in a later workflow
    // task, whose history is past LOW (a wait that begins in the first one has nothing to carry yet).
    qa = await startAgentServer(supplierQa({ workMs: 1_200 }));
  });
  after(async () => {
    await qa.close();
  });

  it('carries a pending input request, its turns and call budget into a new run; the answer reaches the same remote task', async () => {
    await withWorker(
      { 'supplier-qa': loopbackAgent(qa.url) },
      async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'supplier-qa', parts: ASK, contract: { maxRemoteCalls: 40, maxInputRounds: 2 } });
        // The agent asks at once, so the wait begins in the first workflow task, whose history is short:
        // nothing to carry until something wakes the workflow. A stray push (another task's) does, in a
        // workflow task whose history is past LOW.
        await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
        assert.equal((await runsOf(ctx.client, id)).length, 1, 'a short history waits in its first run');
        // A reader following the history (a stream, a served watch) from the first run on.
        const follower = new HistoryFollower(ctx.client, id);
        await follower.prime();
        await ctx.client.workflow.getHandle(id).signal(pushSignal, { taskId: 'another-task' });
        await untilRuns(ctx.client, id, 2);
        const waiting = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
        const runs = await runsOf(ctx.client, id);
        assert.equal(runs[0]?.continued, true, 'the first run continued as new');
        assert.equal(waiting.status, 'WAITING_INPUT', 'the new run waits for the same input');
        assert.equal(waiting.pending?.requestId, `${id}/request-1`, 'with the request the first run opened');
        assert.equal(waiting.pending?.taskId, waiting.remote.taskId);
        assert.deepEqual(
          waiting.turns.map((t) => t.messageId),
          [`${id}/turn-1`],
          'the first turn is carried',
        );
        assert.ok(waiting.remoteCalls >= 1, `the calls made so far are carried (${waiting.remoteCalls})`);
        assert.deepEqual(waiting.contract, { maxRemoteCalls: 40, maxInputRounds: 2, maxWait: '90d' }, 'and so is the contract');
        // The search attributes go on too: the delegation is found by its status.
        const listed = [];
        for await (const wf of ctx.client.workflow.list({ query: `WorkflowId = "${id}" AND BatonStatus = "WAITING_INPUT"` }))
          listed.push(wf);
        assert.ok(
          listed.some((wf) => wf.runId === runs.at(-1)?.runId && wf.status.name === 'RUNNING'),
          'the running run is listed as waiting',
        );

        const sent = await baton.answer(id, `${id}/request-1`, [{ text: 'SN-4471' }]);
        assert.equal(sent.messageId, `${id}/turn-2`, 'the answer goes out as the second turn');
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.equal(record.remote.taskId, waiting.remote.taskId, 'on the same remote task');
        assert.equal((record.artifacts[0]?.parts?.[0]?.data as { serial: string }).serial, 'SN-4471', 'which the answer completed');
        assert.ok(record.remoteCalls > waiting.remoteCalls && record.remoteCalls <= 40, `calls counted on (${record.remoteCalls})`);
        await assert.rejects(baton.answer(id, `${id}/request-1`, [{ text: 'SN-4471' }]), 'a second answer to the request is refused');
        for (let i = 0; i < 20 && follower.status === 'RUNNING'; i++) await follower.next(10_000);
        assert.equal(follower.status, 'COMPLETED', 'the reader followed the history into the run that completed');
        assert.ok(follower.result?.payloads?.length, 'and holds its result from the closing event');
      },
      { continueAsNewAfterEvents: LOW },
    );
  });

  it('carries a result that waits for review; the review settles it in the new run', async () => {
    const policies = new PolicyRegistry().declare('any-reviewed', { base: 'accept-any', review: true });
    await withWorker(
      { 'supplier-qa': loopbackAgent(qa.url) },
      async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'supplier-qa', parts: COMPLETE, policy: 'any-reviewed' });
        const waiting = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
        assert.equal(waiting.pending?.kind, 'review');
        await untilRuns(ctx.client, id, 2);
        assert.equal((await baton.show(id)).pending?.requestId, waiting.pending?.requestId, 'the new run waits for the same review');
        const record = await baton.review(id, waiting.pending?.requestId ?? '', 'accept', 'checked');
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.match(record.outcome?.reasons.at(-1) ?? '', /accepted on review by acme\/ops-1: checked/);
        assert.ok((await runsOf(ctx.client, id)).at(-2)?.continued);
      },
      { continueAsNewAfterEvents: LOW, policies },
    );
  });

  describe('push', () => {
    const SECRET_ENV = 'BATON_TEST_CAN_PUSH_SECRET';
    let webhook: RunningWebhook;
    let connection: Connection;
    before(async () => {
      process.env[SECRET_ENV] = `can-secret-${process.pid}`;
      const { address, namespace } = await testServer();
      connection = await Connection.connect({ address });
      const client = new Client({ connection, namespace });
      webhook = await startWebhook({
        secret: process.env[SECRET_ENV],
        logger: pino({ level: 'warn' }, pino.destination(2)),
        deliver: (delegationId, taskId) => client.workflow.getHandle(delegationId).signal(pushSignal, { taskId }),
      });
    });
    after(async () => {
      await webhook.close();
      await connection.close();
    });

    /**
     * Starts a push delegation to skyway-air (working `workMs`) with the backstop read every `backstop`,
     * on a worker that continues as new after LOW events; `fn` gets its settled record and its runs.
     */
    async function pushDelegation(
      workMs: number,
      server: AgentServerOptions,
      backstop: string,
      request: Partial<StartDelegation>,
      fn: (record: DelegationRecord, runs: WorkflowRun[]) => void,
    ): Promise<void> {
      const agent = await startAgentServer({ ...skywayAir({ workMs }), push: true }, server);
      try {
        await withWorker(
          { 'skyway-air': loopbackAgent(agent.url, { observe: 'auto' }) },
          async (ctx) => {
            const baton = batonFor(ctx);
            const id = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Book a flight to Helsinki' }], ...request });
            const record = await baton.result(id);
            fn(record, await runsOf(ctx.client, id));
          },
          {
            push: PushSchema.parse({ url: webhook.url, secretFromEnv: SECRET_ENV, backstopPoll: backstop }),
            continueAsNewAfterEvents: LOW,
          },
        );
      } finally {
        await agent.close();
      }
    }

    it('keeps every run short while backstop reads go on, and ends on the agent’s result', async () => {
      await pushDelegation(3_000, { pushFault: () => 'drop' }, '100ms', {}, (record, runs) => {
        assert.equal(record.outcome?.kind, 'ACCEPTED', 'the backstop read found the end (every push was dropped)');
        assert.equal(record.agent.observe, 'push');
        assert.ok(runs.length >= 3, `it continued as new while it read (${runs.length} runs)`);
        for (const run of runs.slice(0, -1)) {
          assert.equal(run.continued, true);
          // The first run's first workflow task writes the first send's patch and marker as well, and
          // each run's first backstop read the paced-reads patch's marker and search attribute.
          assert.ok(run.events <= LOW + 18, `each run stays near the threshold (${run.events} events)`);
        }
        assert.ok(record.remoteCalls >= runs.length, `reads of every run are counted (${record.remoteCalls} calls)`);
      });
    });

    it('keeps its deadline across runs', async () => {
      await pushDelegation(60_000, { pushFault: () => 'drop' }, '100ms', { contract: { deadline: '3s' } }, (record, runs) => {
        assert.equal(record.outcome?.kind, 'TIMED_OUT', 'the deadline of the first run fired in a later one');
        assert.equal(record.remote.state, 'TASK_STATE_CANCELED', 'and cancelled the remote task');
        assert.ok(runs.length >= 3, `it continued as new before the deadline (${runs.length} runs)`);
      });
    });

    it('is woken by a push in a later run, and registers for pushes once', async () => {
      let registrations = 0;
      const counting = { holdResponse: (method: string) => ((registrations += /PushNotificationConfig/.test(method) ? 1 : 0), 0) };
      await pushDelegation(1_500, counting, '1h', {}, (record, runs) => {
        assert.equal(record.outcome?.kind, 'ACCEPTED', 'a push woke it (the backstop is an hour)');
        assert.ok(runs.length >= 2, `it continued as new before the push came (${runs.length} runs)`);
        assert.equal(registrations, 1, 'the push registration is carried, not made again');
      });
    });
  });
});
