/**
 * Tasks that work for long, on a real server: once followed for `sparsePoll.after`, a task is read
 * every `sparsePoll.every` through activity retries, so one activity slot serves many tasks and the
 * reads add nothing to history.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
          const before = await lengths();
          const readsBefore = taskIds.map((t) => reads.get(t) ?? 0);
          while (!taskIds.every((t, i) => (reads.get(t) ?? 0) >= (readsBefore[i] ?? 0) + 2)) await new Promise((r) => setTimeout(r, 50));
          const unfinished = (await Promise.all(ids.map((id) => baton.show(id)))).map((r) => r.outcome === undefined);
          const afterReads = await lengths();
          for (let i = 0; i < TASKS; i++) {
            if (unfinished[i]) assert.equal(afterReads[i], before[i], `two more reads of task ${i} wrote nothing to its history`);
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
});
