/**
 * Tasks that work for long, on a real server: once followed for `sparsePoll.after`, a task is read
 * every `sparsePoll.every` through activity retries, so one activity slot serves many tasks and the
 * reads add nothing to history.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { skywayAir } from '../../src/demo/trip-agents';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

const TASKS = 3;

describe('sparse polls', () => {
  /** GetTask calls per task id, and when each task was created. */
  const reads = new Map<string, number>();
  let agent: RunningAgent;
  let streaming: RunningAgent;
  const counting = {
    holdResponse: (method: string, params: unknown) => {
      const id = (params as { id?: unknown } | undefined)?.id;
      if (method === 'GetTask' && typeof id === 'string') reads.set(id, (reads.get(id) ?? 0) + 1);
      return 0;
    },
  };
  before(async () => {
    agent = await startAgentServer(skywayAir({ workMs: 6_000 }), counting);
    streaming = await startAgentServer({ ...skywayAir({ workMs: 6_000 }), name: 'skyway-stream', streaming: true }, counting);
  });
  after(async () => {
    await agent.close();
    await streaming.close();
  });

  for (const mode of ['poll', 'stream'] as const) {
    it(`reads ${TASKS} long ${mode} tasks on one activity slot, with no history growth between reads`, async () => {
      const name = mode === 'poll' ? 'skyway-air' : 'skyway-stream';
      const url = mode === 'poll' ? agent.url : streaming.url;
      await withWorker(
        { [name]: loopbackAgent(url, { observe: mode, readAfterSendMs: 0, sparsePoll: { after: '300ms', every: '500ms' } }) },
        async (ctx) => {
          const baton = batonFor(ctx);
          const ids = await Promise.all(
            Array.from({ length: TASKS }, (_, i) => baton.start({ agent: name, parts: [{ text: `Book seat ${i}` }] })),
          );
          // Every task is read again and again while all of them work, though only one activity runs at a time.
          const taskIds = (await Promise.all(ids.map((id) => baton.until(id, (r) => r.remote.taskId !== undefined, 50)))).map(
            (r) => r.remote.taskId ?? '',
          );
          const readTwice = async (): Promise<void> => {
            while (!taskIds.every((t) => (reads.get(t) ?? 0) >= 3)) await new Promise((r) => setTimeout(r, 50));
          };
          await readTwice();
          const working = await Promise.all(ids.map((id) => baton.show(id)));
          assert.ok(
            working.every((r) => r.outcome === undefined),
            'all were read three times or more before any finished: none held the only slot',
          );
          // Once each has handed its task to sparse reads, two more reads of each change no history.
          const sparse = async (id: string) =>
            ((await ctx.client.workflow.getHandle(id).describe()).raw.pendingActivities ?? []).some(
              (a) => a.activityType?.name === 'readSparsely',
            );
          while (!(await Promise.all(ids.map(sparse))).every(Boolean)) await new Promise((r) => setTimeout(r, 50));
          const lengths = async () =>
            Promise.all(ids.map(async (id) => (await ctx.client.workflow.getHandle(id).describe()).historyLength));
          const readAttempt = async (id: string) =>
            ((await ctx.client.workflow.getHandle(id).describe()).raw.pendingActivities ?? []).find(
              (a) => a.activityType?.name === 'readSparsely',
            )?.attempt;
          const before = await lengths();
          const readsBefore = taskIds.map((t) => reads.get(t) ?? 0);
          while (!taskIds.every((t, i) => (reads.get(t) ?? 0) >= (readsBefore[i] ?? 0) + 2)) await new Promise((r) => setTimeout(r, 50));
          const attempts = await Promise.all(ids.map(readAttempt));
          const unfinished = (await Promise.all(ids.map((id) => baton.show(id)))).map((r) => r.outcome === undefined);
          const afterReads = await lengths();
          for (let i = 0; i < TASKS; i++) {
            if (!unfinished[i]) continue;
            assert.equal(afterReads[i], before[i], `two more reads of task ${i} wrote nothing to its history`);
            // The worker held the attempt for its reads: Temporal did not start one per read (decision 0041).
            assert.equal(attempts[i], 1, `task ${i}: three reads or more in the first attempt`);
          }
          for (const id of ids) {
            const record = await baton.result(id);
            assert.equal(record.outcome?.kind, 'ACCEPTED');
            assert.ok(record.remoteCalls >= 4, `every read is counted as a call (${record.remoteCalls})`);
            assert.ok((record.pacedReads ?? 0) >= 2, `sparse reads are paced, outside the call budget (${record.pacedReads})`);
          }
        },
        { maxActivities: 1 },
      );
    });
  }

  /** The pending sparse read of delegation `id`, if any. */
  const pendingRead = async (client: Client, id: string) =>
    ((await client.workflow.getHandle(id).describe()).raw.pendingActivities ?? []).find((a) => a.activityType?.name === 'readSparsely');

  it('ends an attempt after its span, and the next one goes on counting reads, with no history growth', async () => {
    await withWorker(
      {
        'skyway-air': loopbackAgent(agent.url, {
          observe: 'poll',
          readAfterSendMs: 0,
          sparsePoll: { after: '0s', every: '300ms', attemptSpan: '900ms' },
        }),
      },
      async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Book a seat, slowly' }] });
        // A span of three reads: the first attempt holds two after its own, then ends as benign.
        while (((await pendingRead(ctx.client, id))?.attempt ?? 0) < 2) await new Promise((r) => setTimeout(r, 50));
        const before = (await ctx.client.workflow.getHandle(id).describe()).historyLength;
        while (((await pendingRead(ctx.client, id))?.attempt ?? 0) < 3) await new Promise((r) => setTimeout(r, 50));
        const pending = await pendingRead(ctx.client, id);
        assert.equal((await ctx.client.workflow.getHandle(id).describe()).historyLength, before, 'a new attempt wrote nothing to history');
        assert.match(pending?.lastFailure?.message ?? '', /remote task still TASK_STATE_WORKING/, 'the attempt ended as the wait itself');
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        const taskReads = reads.get(record.remote.taskId ?? '') ?? 0;
        // Two attempts' reads and more were counted across attempts (the heartbeat details carry them).
        assert.ok((record.pacedReads ?? 0) >= 6, `reads of every attempt are counted (${record.pacedReads} of ${taskReads})`);
        assert.ok(
          (record.pacedReads ?? 0) <= taskReads,
          `no read counted that the agent did not see (${record.pacedReads} of ${taskReads})`,
        );
      },
    );
  });

  it('hands its held reads back when the worker stops, and another worker finishes the wait', async () => {
    const taskQueue = `test-sparse-${randomUUID()}`;
    const agents = {
      'skyway-air': loopbackAgent(agent.url, { observe: 'poll', readAfterSendMs: 0, sparsePoll: { after: '0s', every: '300ms' } }),
    };
    let id = '';
    await withWorker(
      agents,
      async (ctx) => {
        id = await batonFor(ctx).start({ agent: 'skyway-air', parts: [{ text: 'Book a seat before the restart' }] });
        const { remote } = await batonFor(ctx).until(id, (r) => r.remote.taskId !== undefined, 50);
        const first = reads.get(remote.taskId ?? '') ?? 0;
        // Held: the task is read again within the same attempt.
        while ((reads.get(remote.taskId ?? '') ?? 0) < first + 2) await new Promise((r) => setTimeout(r, 50));
        assert.equal((await pendingRead(ctx.client, id))?.attempt, 1);
        void ctx.worker.shutdown();
      },
      { taskQueue },
    );
    await withWorker(
      agents,
      async (ctx) => {
        const pending = await pendingRead(ctx.client, id);
        assert.match(
          pending?.lastFailure?.message ?? '',
          /handed back: this worker is stopping/,
          'the stopping worker ended its attempt itself',
        );
        const record = await batonFor(ctx).result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
      },
      { taskQueue },
    );
  });
});
