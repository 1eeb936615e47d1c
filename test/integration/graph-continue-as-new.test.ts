/**
 * Large graphs with bounded history, on a real server: with `worker.continueAsNewAfterEvents` set low,
 * a graph stops starting nodes once its history is full, lets the running ones settle, and goes on in a
 * new run with its nodes' states, the agent's context and what later nodes are sent about earlier ones.
 * Follow-ups and cancel work in a continued run; `graph show` pages through the nodes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { skywayAir, type WorkLog } from '../../src/demo/trip-agents';
import { FIRST_SEND_FLAGS } from '../../src/shared/delegation-state';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import type { GraphRecord } from '../../src/shared/graph-types';
import { loopbackAgent, runsOf, withWorker, type TestWorkerContext } from '../helpers/temporal';

type Work = Parameters<WorkLog>[0];
const LOW = 40;

const graphsFor = (ctx: TestWorkerContext): GraphClient =>
  new GraphClient(ctx.client.connection, {
    namespace: ctx.client.options.namespace,
    taskQueue: ctx.taskQueue,
    caller: { tenant: 'acme', user: 'ops-1' },
  });

const detail = async (ctx: TestWorkerContext, delegationId: string): Promise<DelegationRecord> =>
  (await ctx.client.workflow.getHandle(delegationId).result()) as DelegationRecord;

/** `count` nodes to the agent, each quick, none depending on another. */
const quick = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `q${i}`, agent: 'skyway-air', text: `Book seat ${i}` }));

/** A node the agent holds until released, and one that depends on it. */
const heldThenAfter = [
  { id: 'held', agent: 'skyway-air', text: 'Please hold the seat' },
  { id: 'after', agent: 'skyway-air', text: 'Then book the return', dependsOn: ['held'] },
];

const node = (g: GraphRecord, id: string) => {
  const found = g.nodes.find((n) => n.id === id);
  assert.ok(found, `node ${id} on the page`);
  return found;
};

describe('large graphs: continue-as-new', () => {
  const work: Work[] = [];
  let agent: RunningAgent;
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  let openGate: () => void = () => {};
  const gate = new Promise<void>((r) => (openGate = r));
  before(async () => {
    agent = await startAgentServer(
      skywayAir({
        workMs: 10,
        onWork: (w) => void work.push(w),
        hold: (text) => (/hold/.test(text) ? held : /gate/.test(text) ? gate : Promise.resolve()),
      }),
    );
  });
  /**
   * Runs `fn` with a worker for the agent whose graphs continue as new after LOW events, and a GraphClient.
   * The backstop is short: a node's signal missed in a run's hand-over (seen once in many CI runs) costs
   * two seconds here, as it costs at most `graphBackstop` in production, instead of the test's time.
   */
  const withGraphs = (
    fn: (graphs: GraphClient, ctx: TestWorkerContext) => Promise<void>,
    opts: { graphBackstop?: string; continueAsNewAfterEvents?: number } = {},
  ) =>
    withWorker({ 'skyway-air': loopbackAgent(agent.url, { acceptance: 'accept-any' }) }, (ctx) => fn(graphsFor(ctx), ctx), {
      continueAsNewAfterEvents: LOW,
      graphBackstop: '2s',
      ...opts,
    });
  after(async () => {
    release();
    openGate();
    await agent.close();
  });

  it(
    'runs a graph over several runs: every node once, one context, references across runs, history bounded',
    { timeout: 120_000 },
    async () => {
      await withGraphs(async (graphs, ctx) => {
        // Four chains of eight: node i depends on node i-4.
        const nodes = Array.from({ length: 32 }, (_, i) => ({
          id: `n${i}`,
          agent: 'skyway-air',
          text: `Book seat ${i}`,
          ...(i >= 4 ? { dependsOn: [`n${i - 4}`] } : {}),
        }));
        const id = await graphs.start({ concurrency: 4, nodes }, { id: `large-${randomUUID()}` });
        const g = await graphs.result(id, { limit: 1_000 });
        assert.equal(g.outcome?.kind, 'ACCEPTED', JSON.stringify(g.outcome));
        assert.deepEqual(g.counts, { ACCEPTED: 32 });

        const runs = await runsOf(ctx.client, id);
        assert.ok(runs.length >= 3, `the graph continued as new (${runs.length} runs)`);
        assert.equal(g.runs, runs.length, 'the record counts the runs');
        assert.ok(
          runs.slice(0, -1).every((r) => r.continued),
          'every run but the last continued as new',
        );
        // A run stops starting nodes at the threshold; the running ones (at most 4) settle in it.
        const longest = Math.max(...runs.map((r) => r.events));
        assert.ok(longest <= LOW + 4 * 12, `every run stays near the threshold (longest ${longest} events)`);

        // Every node ran once, all in the one context the first node opened.
        const records = await Promise.all(nodes.map((n) => detail(ctx, `${id}/${n.id}`)));
        const starts = work.filter((w) => w.phase === 'start' && records.some((r) => r.remote.taskId === w.taskId));
        assert.equal(starts.length, 32, 'one remote task per node');
        assert.deepEqual([...new Set(starts.map((w) => w.contextId))], [g.contexts['skyway-air']]);
        // What a node is sent about its dependency, across runs: the dependency's task and accepted artifact.
        for (let i = 4; i < 32; i++) {
          const [dep, self] = [records[i - 4], records[i]];
          const sent = work.find((w) => w.taskId === self?.remote.taskId && w.phase === 'start');
          assert.deepEqual(sent?.referenceTaskIds, [dep?.remote.taskId], `n${i} references n${i - 4}`);
          assert.equal(
            (sent?.data[0] as { references: { artifactId: string }[] }).references[0]?.artifactId,
            dep?.artifacts[0]?.artifactId,
          );
        }

        // Pages: a slice of the nodes in spec order, and a filter by state.
        const page = await graphs.show(id, { offset: 10, limit: 5 });
        assert.deepEqual(
          page.nodes.map((n) => n.id),
          ['n10', 'n11', 'n12', 'n13', 'n14'],
        );
        assert.deepEqual(page.page, { offset: 10, limit: 5, total: 32 });
        assert.equal((await graphs.show(id, { state: 'PENDING' })).page.total, 0);
        assert.equal((await graphs.show(id, { state: 'ACCEPTED', limit: 1 })).page.total, 32);
      });
    },
  );

  it(
    'takes a follow-up and a cancel in a continued run; the follow-up references a node of an earlier run',
    { timeout: 120_000 },
    async () => {
      await withGraphs(async (graphs, ctx) => {
        const id = await graphs.start({
          concurrency: 2,
          nodes: [
            ...quick(12),
            { id: 'held', agent: 'skyway-air', text: 'Please hold the seat', dependsOn: ['q11'] },
            { id: 'after', agent: 'skyway-air', text: 'Then book the return', dependsOn: ['held'] },
          ],
        });
        const running = await graphs.until(id, (g) => g.counts.RUNNING === 1 && node(g, 'held').status === 'RUNNING', 50, { limit: 20 });
        assert.ok(running.runs >= 2, `the graph continued as new before the held node (run ${running.runs})`);

        const added = await graphs.addFollowUp(id, {
          id: 'extra',
          agent: 'skyway-air',
          text: 'Book a seat for the dog',
          dependsOn: ['q0'],
        });
        assert.equal(added.delegationId, `${id}/extra`);
        await graphs.until(id, (g) => node(g, 'extra').status === 'SETTLED', 50);
        const extra = await detail(ctx, added.delegationId);
        assert.equal(extra.outcome?.kind, 'ACCEPTED');
        const q0 = await detail(ctx, `${id}/q0`);
        const sent = work.find((w) => w.taskId === extra.remote.taskId && w.phase === 'start');
        assert.deepEqual(sent?.referenceTaskIds, [q0.remote.taskId], 'the follow-up references q0, settled in the first run');

        const cancelled = await graphs.cancel(id, 'the flight was called off');
        assert.equal(cancelled.outcome?.kind, 'CANCELED');
        const g = await graphs.show(id);
        assert.equal(node(g, 'held').outcome, 'CANCELED');
        assert.equal(node(g, 'after').status, 'SKIPPED');
        assert.deepEqual(node(g, 'after').reasons, ['graph cancelled: the flight was called off']);
        assert.equal(node(g, 'extra').followUp, true);
        assert.deepEqual(g.counts, { ACCEPTED: 13, CANCELED: 1, SKIPPED: 1 });
      });
    },
  );

  it('takes every follow-up sent while it continues as new, each once', { timeout: 120_000 }, async () => {
    await withGraphs(async (graphs, ctx) => {
      // The gate node keeps the graph open while the quick ones take it through run after run.
      const id = await graphs.start({
        concurrency: 4,
        nodes: [{ id: 'gate', agent: 'skyway-air', text: 'Wait at the gate' }, ...quick(40)],
      });
      const extra = Array.from({ length: 12 }, (_, i) => `extra${i}`);
      const added = [];
      for (const nodeId of extra) added.push(await graphs.addFollowUp(id, { id: nodeId, agent: 'skyway-air', text: `Book ${nodeId}` }));
      openGate();
      assert.deepEqual(
        added.map((a) => a.delegationId),
        extra.map((nodeId) => `${id}/${nodeId}`),
      );
      const g = await graphs.result(id, { limit: 1_000 });
      assert.deepEqual(g.counts, { ACCEPTED: 53 });
      const runs = await runsOf(ctx.client, id);
      const taking = runs.filter((r) => r.updates > 0).length;
      assert.ok(taking >= 2, `follow-ups were taken by ${taking} of ${runs.length} runs`);
      for (const nodeId of extra) {
        const r = await detail(ctx, `${id}/${nodeId}`);
        assert.equal(work.filter((w) => w.phase === 'start' && w.text === `Book ${nodeId}`).length, 1, `${nodeId} sent once`);
        assert.equal(work.filter((w) => w.phase === 'start' && w.taskId === r.remote.taskId).length, 1, `${nodeId} one remote task`);
      }
    });
  });

  it('learns of a node an earlier run started whose delegation was terminated by hand', { timeout: 120_000 }, async () => {
    await withGraphs(
      async (graphs, ctx) => {
        const id = await graphs.start({ concurrency: 2, nodes: [...heldThenAfter, ...quick(12)] });
        // The quick nodes fill the first run's history while the held one runs: it is carried.
        const carried = await graphs.until(id, (g) => g.runs >= 2 && g.counts.ACCEPTED === 12, 50, { limit: 20 });
        assert.equal(node(carried, 'held').status, 'RUNNING');
        await ctx.client.workflow.getHandle(`${id}/held`).terminate('stuck, stopped by an operator');

        const g = await graphs.result(id);
        assert.equal(node(g, 'held').outcome, 'ERROR');
        assert.deepEqual(node(g, 'held').reasons, ['its delegation workflow was terminated without saying how it ended']);
        assert.equal(node(g, 'after').status, 'SKIPPED');
        assert.deepEqual(g.counts, { ACCEPTED: 12, ERROR: 1, SKIPPED: 1 });
      },
      { graphBackstop: '1s' },
    );
  });

  it('learns of a node the same run started whose delegation was terminated by hand', { timeout: 120_000 }, async () => {
    await withGraphs(
      async (graphs, ctx) => {
        const id = await graphs.start({ concurrency: 2, nodes: heldThenAfter });
        await graphs.until(id, (g) => node(g, 'held').status === 'RUNNING', 50);
        await ctx.client.workflow.getHandle(`${id}/held`).terminate('stuck, stopped by an operator');

        const g = await graphs.result(id);
        assert.equal(g.runs, 1, 'no continue-as-new: the run that started the node learned how it ended');
        assert.deepEqual(node(g, 'held').reasons, ['its delegation workflow was terminated without saying how it ended']);
        assert.deepEqual(g.counts, { ERROR: 1, SKIPPED: 1 });
      },
      { graphBackstop: '1s', continueAsNewAfterEvents: 10_000 },
    );
  });

  it('does not take over a workflow it did not start under a node id', { timeout: 120_000 }, async () => {
    await withGraphs(
      async (graphs, ctx) => {
        const id = `acme:squatted-${randomUUID()}`;
        // A workflow under the node's id, on a queue no worker polls: it stays running, untouched.
        const squatter = await ctx.client.workflow.start('delegationWorkflow', {
          workflowId: `${id}/seat`,
          taskQueue: `nobody-${randomUUID()}`,
          args: [{}],
        });
        await graphs.start(
          {
            concurrency: 2,
            nodes: [
              { id: 'seat', agent: 'skyway-air', text: 'Book a seat' },
              { id: 'meal', agent: 'skyway-air', text: 'Book a meal' },
            ],
          },
          { id },
        );
        const g = await graphs.result(id);
        assert.equal(node(g, 'seat').outcome, 'ERROR');
        assert.deepEqual(node(g, 'seat').reasons, [`a workflow with its id (${id}/seat) exists already, not started by this graph`]);
        assert.equal(node(g, 'meal').outcome, 'ACCEPTED');
        assert.equal((await squatter.describe()).status.name, 'RUNNING', 'the graph left it alone');
        await squatter.terminate('test over');
      },
      { continueAsNewAfterEvents: 10_000 },
    );
  });

  it('a node whose graph is gone settles all the same and notes that it could not tell it', { timeout: 60_000 }, async () => {
    await withGraphs(async (_graphs, ctx) => {
      const gone = `acme:gone-${randomUUID()}`;
      const record = (await ctx.client.workflow.execute('delegationWorkflow', {
        workflowId: `${gone}/seat`,
        taskQueue: ctx.taskQueue,
        args: [
          {
            agent: 'skyway-air',
            parts: [{ text: 'Book a seat' }],
            tenant: 'acme',
            owner: 'ops-1',
            notify: { workflowId: gone, remoteTask: false, requests: false, settled: true },
            settledFromActivity: true,
            ...FIRST_SEND_FLAGS,
          },
        ],
      })) as DelegationRecord;
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      assert.ok(
        record.notes.includes(`could not tell workflow ${gone} about how it ended: workflow ${gone} is not running`),
        record.notes.join(' | '),
      );
    });
  });
});
