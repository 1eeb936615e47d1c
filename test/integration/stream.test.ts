/**
 * Stream observation: SubscribeToTask, a stream cut mid-task, the state rebuilt by subscribing again
 * and reading GetTask, and a cancel that reaches a delegation while it streams.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { batonFor, loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

const REQUEST = [{ text: 'Verify inspection report inspection-92 against order A1042 for SN-4471' }];
const clientFor = (ctx: TestWorkerContext) => batonFor(ctx);

describe('stream observation', () => {
  it('rebuilds the state after the stream is cut mid-task', { timeout: 60_000 }, async () => {
    let subscribes = 0;
    const agent = await startAgentServer(supplierQa({ workMs: 1_500, streaming: true }), {
      // The first subscription's connection is cut after 300 ms, long before the task completes.
      cutStream: (method) => (method === 'SubscribeToTask' && ++subscribes === 1 ? 300 : 0),
    });
    try {
      await withWorker({ 'supplier-qa': loopbackAgent(agent.url, { observe: 'stream' }) }, async (ctx) => {
        const baton = clientFor(ctx);
        const record = await baton.result(await baton.start({ agent: 'supplier-qa', parts: REQUEST }));
        assert.equal(record.agent.observe, 'stream');
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.equal(record.remote.state, 'TASK_STATE_COMPLETED');
        assert.equal(record.artifacts[0]?.name, 'verdict', 'artifacts come from GetTask, the authority');
        assert.ok(subscribes >= 2, `subscribed again after the cut (${subscribes} subscriptions)`);
      });
    } finally {
      await agent.close();
    }
  });

  it('follows a question and its answer on the same stream-observed task', { timeout: 60_000 }, async () => {
    const agent = await startAgentServer(supplierQa({ workMs: 50, streaming: true }));
    try {
      await withWorker({ 'supplier-qa': loopbackAgent(agent.url) }, async (ctx) => {
        const baton = clientFor(ctx);
        const id = await baton.start({
          agent: 'supplier-qa',
          parts: [{ text: 'Verify inspection report inspection-92 against order A1042' }],
        });
        const waiting = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
        assert.equal(waiting.pending?.kind, 'input');
        await baton.answer(id, waiting.pending?.requestId ?? '', [{ text: 'SN-4471' }]);
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.equal((record.artifacts[0]?.parts?.[0]?.data as { serial: string }).serial, 'SN-4471');
      });
    } finally {
      await agent.close();
    }
  });

  it('stops following the stream when the delegation is cancelled', { timeout: 60_000 }, async () => {
    const agent = await startAgentServer(supplierQa({ workMs: 60_000, streaming: true }));
    try {
      await withWorker({ 'supplier-qa': loopbackAgent(agent.url) }, async (ctx) => {
        const baton = clientFor(ctx);
        const id = await baton.start({ agent: 'supplier-qa', parts: REQUEST });
        await baton.until(id, (r) => r.remote.state === 'TASK_STATE_WORKING' || r.status === 'REMOTE_ACTIVE', 50);
        const record = await baton.cancel(id, 'not needed');
        assert.equal(record.agent.observe, 'stream', 'auto chose the stream from the card');
        assert.equal(record.outcome?.kind, 'CANCELED');
        assert.equal(record.remote.state, 'TASK_STATE_CANCELED');
      });
    } finally {
      await agent.close();
    }
  });
});
