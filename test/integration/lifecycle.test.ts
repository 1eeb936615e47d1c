/**
 * The delegation lifecycle on a real server with the real supplier-qa agent: input routed through the
 * `answer` Update and its validator, tenants kept apart, and cancels recorded truthfully.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AgentClient } from '../../src/a2a/agent-client';
import { createAgentFetch } from '../../src/a2a/agent-fetch';
import { chooseInterface, fetchCard } from '../../src/a2a/card';
import { DelegationNotFoundError, RequestRefusedError } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

const ASK = [{ text: 'Verify inspection report inspection-92 against order A1042', mediaType: 'text/plain' }];
const COMPLETE = [{ text: 'Verify inspection report inspection-92 against order A1042 for SN-4471', mediaType: 'text/plain' }];

const clientFor = batonFor;

describe('input routing, access and cancel', () => {
  let fast: RunningAgent;
  let slow: RunningAgent;
  before(async () => {
    fast = await startAgentServer(supplierQa({ workMs: 50 }));
    slow = await startAgentServer(supplierQa({ workMs: 60_000 }));
  });
  after(async () => {
    await fast.close();
    await slow.close();
  });

  it('routes an answer to the remote task, refusing stale and foreign answers', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(fast.url) }, async (ctx) => {
      const baton = clientFor(ctx);
      const id = await baton.start({ agent: 'supplier-qa', parts: ASK });
      const waiting = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
      assert.equal(waiting.status, 'WAITING_INPUT');
      assert.equal(waiting.pending?.kind, 'input');
      assert.equal(waiting.pending?.requestId, `${id}/request-1`);
      assert.match(waiting.pending?.prompt[0]?.text ?? '', /serial number/);
      assert.equal(waiting.pending?.taskId, waiting.remote.taskId);

      await assert.rejects(
        baton.answer(id, `${id}/request-7`, [{ text: 'SN-1' }]),
        (err: unknown) => err instanceof RequestRefusedError && /is not the pending one/.test(err.message),
      );
      await assert.rejects(
        baton.answer(id, `${id}/request-1`, []),
        (err: unknown) => err instanceof RequestRefusedError && /invalid answer/.test(err.message),
      );
      // Another tenant's delegation is not found, whatever is tried: its existence does not leak.
      const stranger = clientFor(ctx, 'globex', 'mallory');
      const notFound = (err: unknown) => err instanceof DelegationNotFoundError && err.message === `no delegation with id ${id}`;
      await assert.rejects(stranger.answer(id, `${id}/request-1`, [{ text: 'SN-666' }]), notFound);
      await assert.rejects(stranger.show(id), notFound);
      await assert.rejects(stranger.cancel(id), notFound);
      await assert.rejects(
        baton.authorize(id, `${id}/request-1`, 'some-token'),
        (err: unknown) => err instanceof RequestRefusedError && /use answer/.test(err.message),
      );

      const sent = await baton.answer(id, `${id}/request-1`, [{ text: 'SN-4471' }]);
      assert.equal(sent.messageId, `${id}/turn-2`);
      const record = await baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      assert.equal(record.pending, null);
      assert.deepEqual(
        record.turns.map((t) => t.messageId),
        [`${id}/turn-1`, `${id}/turn-2`],
      );
      assert.equal(
        (record.artifacts[0]?.parts?.[0]?.data as { serial: string }).serial,
        'SN-4471',
        'the answer reached the same remote task',
      );
      assert.ok(record.remote.history.some((h) => h.state === 'TASK_STATE_INPUT_REQUIRED'));
      await assert.rejects(baton.answer(id, `${id}/request-1`, [{ text: 'SN-4471' }]));
    });
  });

  it('cancels a delegation waiting for input, and the remote task with it', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(fast.url) }, async (ctx) => {
      const baton = clientFor(ctx);
      const id = await baton.start({ agent: 'supplier-qa', parts: ASK });
      await baton.until(id, (r) => r.pending !== null, 50);
      const record = await baton.cancel(id, 'order withdrawn');
      assert.equal(record.outcome?.kind, 'CANCELED');
      assert.equal(record.remote.state, 'TASK_STATE_CANCELED');
      assert.deepEqual(record.outcome?.reasons, ['order withdrawn', 'remote task CANCELED']);
      assert.deepEqual(record.cancel, { by: 'acme/ops-1', reason: 'order withdrawn' });
    });
  });

  it('cancels a delegation while the agent works', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(slow.url) }, async (ctx) => {
      const baton = clientFor(ctx);
      const id = await baton.start({ agent: 'supplier-qa', parts: COMPLETE });
      await baton.until(id, (r) => r.status === 'REMOTE_ACTIVE', 50);
      const record = await baton.cancel(id);
      assert.equal(record.outcome?.kind, 'CANCELED');
      assert.equal(record.remote.state, 'TASK_STATE_CANCELED');
      assert.equal(record.outcome?.reasons[0], 'cancelled by ops-1');
    });
  });

  it('ends at the deadline as TIMED_OUT, cancelling the remote task', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(slow.url) }, async (ctx) => {
      const baton = clientFor(ctx);
      const id = await baton.start({ agent: 'supplier-qa', parts: COMPLETE, contract: { deadline: '2s' } });
      const record = await baton.result(id);
      assert.equal(record.outcome?.kind, 'TIMED_OUT');
      assert.deepEqual(record.outcome?.reasons, ['deadline of 2s passed', 'remote task CANCELED']);
      assert.equal(record.remote.state, 'TASK_STATE_CANCELED');
      assert.deepEqual(record.contract, { maxInputRounds: 10, maxRemoteCalls: 500, maxWait: '90d', deadline: '2s' });
    });
  });

  it('ends in ERROR when the agent asks more often than the contract allows', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(fast.url, { contract: { maxInputRounds: 0 } }) }, async (ctx) => {
      const baton = clientFor(ctx);
      const record = await baton.result(await baton.start({ agent: 'supplier-qa', parts: ASK }));
      assert.equal(record.outcome?.kind, 'ERROR');
      assert.match(record.outcome?.reasons[0] ?? '', /asked for input more than 0 time\(s\)/);
      assert.equal(record.remote.state, 'TASK_STATE_CANCELED');
      assert.equal(record.pending, null);
    });
  });

  it('ends in ERROR when the remote-call budget is used up, cancelling the remote task', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(slow.url, { observe: 'poll' }) }, async (ctx) => {
      const baton = clientFor(ctx);
      const record = await baton.result(await baton.start({ agent: 'supplier-qa', parts: COMPLETE, contract: { maxRemoteCalls: 6 } }));
      assert.equal(record.outcome?.kind, 'ERROR');
      assert.deepEqual(record.outcome?.reasons, ['remote call budget of 6 used up (contract maxRemoteCalls)', 'remote task CANCELED']);
      assert.equal(record.remote.state, 'TASK_STATE_CANCELED');
      assert.equal(record.remoteCalls, 7, 'card, send, 4 polls, then the cancel itself');
    });
  });

  it('keeps history flat while it polls', async () => {
    let polls = 0;
    let tenPolls: () => void = () => {};
    const polled = new Promise<void>((r) => (tenPolls = r));
    const counted = await startAgentServer(supplierQa({ workMs: 60_000 }), {
      holdResponse: (method) => {
        if (method === 'GetTask' && ++polls === 10) tenPolls();
        return 0;
      },
    });
    try {
      await withWorker(
        { 'supplier-qa': loopbackAgent(counted.url, { observe: 'poll' }) },
        async (ctx) => {
          const baton = clientFor(ctx);
          const id = await baton.start({ agent: 'supplier-qa', parts: COMPLETE });
          await baton.until(id, (r) => r.status === 'REMOTE_ACTIVE', 50);
          const events = async () => (await ctx.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
          const before = await events();
          const startedAt = polls;
          await polled;
          assert.ok(polls - startedAt >= 1);
          assert.equal(await events(), before, `history stayed at ${before} events over ${polls} polls`);
          await baton.cancel(id);
        },
        { poll: { initialMs: 50, maxMs: 100 } },
      );
    } finally {
      await counted.close();
    }
  });

  it('records the truth when the agent completed before the cancel reached it', async () => {
    // Polling every 30 s: the first poll sees the task working, the agent finishes 1.5 s later, and
    // the cancel comes after that, before our next poll.
    const medium = await startAgentServer(supplierQa({ workMs: 1_500 }));
    try {
      await withWorker(
        { 'supplier-qa': loopbackAgent(medium.url, { observe: 'poll' }) },
        async (ctx) => {
          const baton = clientFor(ctx);
          const id = await baton.start({ agent: 'supplier-qa', parts: COMPLETE });
          const active = await baton.until(id, (r) => r.status === 'REMOTE_ACTIVE', 50);
          const entry = loopbackAgent(medium.url);
          const fetched = await fetchCard('supplier-qa', entry);
          const direct = await AgentClient.create(
            'supplier-qa',
            fetched.card,
            chooseInterface('supplier-qa', fetched, entry),
            createAgentFetch('supplier-qa', entry),
          );
          for (let i = 0; (await direct.getTask(active.remote.taskId ?? '')).status.state !== 'TASK_STATE_COMPLETED'; i++) {
            assert.ok(i < 200, 'the agent completes');
            await new Promise((r) => setTimeout(r, 20)); // polling the agent, the only way to see its state
          }
          const record = await baton.cancel(id, 'too late?');
          assert.equal(record.outcome?.kind, 'CANCELED');
          assert.equal(record.remote.state, 'TASK_STATE_COMPLETED', 'the real final state is kept');
          assert.deepEqual(record.outcome?.reasons, [
            'too late?',
            'remote task ended COMPLETED before the cancel reached it; its result is not accepted',
          ]);
        },
        { poll: { initialMs: 30_000, maxMs: 30_000 } },
      );
    } finally {
      await medium.close();
    }
  });
});
