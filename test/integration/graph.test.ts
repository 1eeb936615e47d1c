/**
 * Task graphs on a real server with real booking and drawing agents: parallel branches in one context
 * per agent, referenceTaskIds, failure policies, follow-ups and artifact lineage.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { GraphClient } from '../../src/client/graph-client';
import { GraphNotFoundError, RequestRefusedError } from '../../src/client/errors';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { brokenLab } from '../../src/demo/simple-agents';
import { arcticTours, harborHotel, imageStudio, skywayAir, type WorkLog } from '../../src/demo/trip-agents';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import type { GraphRecord } from '../../src/shared/graph-types';
import { loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

type Work = Parameters<WorkLog>[0];

const graphsFor = (ctx: TestWorkerContext, tenant = 'acme', user = 'ops-1'): GraphClient =>
  new GraphClient(ctx.client.connection, { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller: { tenant, user } });

export const TRIP = {
  failurePolicy: 'continue',
  nodes: [
    { id: 'flight', agent: 'skyway-air', text: 'Book a flight Berlin to Helsinki on 12 Feb 2027 for 2 adults' },
    { id: 'hotel', agent: 'harbor-hotel', text: 'Book a double room from 12 to 15 Feb 2027', dependsOn: ['flight'] },
    { id: 'snowmobile', agent: 'arctic-tours', text: 'Book a snowmobile tour for 2 on 13 Feb 2027', dependsOn: ['flight'] },
    { id: 'spa', agent: 'harbor-hotel', text: 'Book the sauna and spa for 2 on 14 Feb 2027', dependsOn: ['hotel'] },
  ],
};

/** A node's details live in its delegation: its record, as the delegation workflow returned it. */
const detail = async (ctx: TestWorkerContext, delegationId: string): Promise<DelegationRecord> =>
  (await ctx.client.workflow.getHandle(delegationId).result()) as DelegationRecord;

const node = (g: GraphRecord, id: string) => {
  const found = g.nodes.find((n) => n.id === id);
  assert.ok(found, `node ${id}`);
  return found;
};

describe('task graphs', () => {
  const work: Work[] = [];
  const agents: RunningAgent[] = [];
  const urls: Record<string, string> = {};
  // The first sailboat is held until the follow-ups were tried, so the graph is surely still running.
  let releaseSailboat: () => void = () => {};
  const sailboatHeld = new Promise<void>((r) => (releaseSailboat = r));
  const hold = (text: string): Promise<void> => (/calm sea/.test(text) ? sailboatHeld : Promise.resolve());
  before(async () => {
    const onWork = (w: Work): void => void work.push(w);
    for (const def of [
      skywayAir({ workMs: 100, onWork }),
      harborHotel({ workMs: 600, onWork }),
      arcticTours({ workMs: 600, onWork }),
      imageStudio({ workMs: 200, onWork, hold }),
      brokenLab({ workMs: 150 }),
    ]) {
      const agent = await startAgentServer(def);
      agents.push(agent);
      urls[agent.name] = agent.url;
    }
    const slow = await startAgentServer({ ...arcticTours({ workMs: 30_000, onWork }), name: 'slow-tours' });
    agents.push(slow);
    urls['slow-tours'] = slow.url;
  });
  after(async () => {
    for (const a of agents) await a.close();
  });
  const registry = () =>
    Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, loopbackAgent(url, { acceptance: 'accept-any' })]));

  it('runs the Helsinki trip: hotel and snowmobile in parallel after the flight, spa after the hotel, one context per agent', async () => {
    await withWorker(registry(), async (ctx) => {
      const graphs = graphsFor(ctx);
      const id = await graphs.start(TRIP, { id: `trip-${randomUUID()}` });
      const g = await graphs.result(id);
      assert.equal(g.outcome?.kind, 'ACCEPTED', JSON.stringify(g.outcome));
      for (const n of g.nodes) {
        assert.equal(n.outcome, 'ACCEPTED');
        assert.equal(n.delegationId, `${id}/${n.id}`);
      }
      const [flight, hotel, snow, spa] = await Promise.all(
        ['flight', 'hotel', 'snowmobile', 'spa'].map((n) => detail(ctx, node(g, n).delegationId)),
      );
      // A page's started nodes carry their remote tasks, from one visibility query. The index is
      // eventually consistent: ask again until it has caught up (bounded).
      let shown = g;
      for (let i = 0; i < 100 && node(shown, 'spa').remote.state !== 'TASK_STATE_COMPLETED'; i++) shown = await graphs.show(id);
      assert.equal(node(shown, 'hotel').remote.taskId, hotel?.remote.taskId);
      assert.equal(node(shown, 'spa').remote.state, 'TASK_STATE_COMPLETED');
      assert.equal(node(shown, 'spa').delegation?.status, 'SETTLED');
      // The agents' own clocks: hotel and snowmobile overlap; the spa starts after the hotel ended.
      const at = (taskId: string | undefined, phase: 'start' | 'end') =>
        work.find((w) => w.taskId === taskId && w.phase === phase)?.at ?? NaN;
      assert.ok(
        at(hotel?.remote.taskId, 'start') < at(snow?.remote.taskId, 'end') &&
          at(snow?.remote.taskId, 'start') < at(hotel?.remote.taskId, 'end'),
        'hotel and snowmobile ran at the same time',
      );
      assert.ok(at(spa?.remote.taskId, 'start') >= at(hotel?.remote.taskId, 'end'), 'spa after hotel');
      assert.ok(at(hotel?.remote.taskId, 'start') >= at(flight?.remote.taskId, 'end'), 'hotel after flight');
      // The delegations' records (the activities' clocks) overlap as well.
      const window = (r?: DelegationRecord) => ({ start: r?.turns[0]?.sentAt ?? '', end: r?.remote.history.at(-1)?.observedAt ?? '' });
      assert.ok(window(hotel).start < window(snow).end && window(snow).start < window(hotel).end);
      // One context per agent: the spa went into the hotel's context.
      assert.deepEqual(Object.keys(g.contexts).sort(), ['arctic-tours', 'harbor-hotel', 'skyway-air']);
      assert.equal(spa?.remote.contextId, hotel?.remote.contextId);
      assert.equal(g.contexts['harbor-hotel'], hotel?.remote.contextId);
      assert.equal(work.find((w) => w.taskId === spa?.remote.taskId)?.contextId, hotel?.remote.contextId, 'the agent saw the same context');
      assert.notEqual(spa?.remote.taskId, hotel?.remote.taskId, 'a new task, not a message to the finished one');
      // referenceTaskIds name the dependencies' remote tasks, as the agents received them.
      const received = (r?: DelegationRecord) => work.find((w) => w.taskId === r?.remote.taskId)?.referenceTaskIds;
      assert.deepEqual(received(hotel), [flight?.remote.taskId]);
      assert.deepEqual(received(snow), [flight?.remote.taskId]);
      assert.deepEqual(received(spa), [hotel?.remote.taskId]);
      // The hotel's accepted booking went to the spa as a reference (ids and digest, not content).
      const hotelBooking = hotel?.artifacts[0];
      const sent = work.find((w) => w.taskId === spa?.remote.taskId);
      assert.deepEqual(sent?.data, [
        {
          references: [
            {
              node: 'hotel',
              taskId: hotel?.remote.taskId,
              artifactId: hotelBooking?.artifactId,
              name: 'booking',
              mediaType: hotelBooking?.mediaType,
              sha256: hotelBooking?.sha256,
              size: hotelBooking?.size,
            },
          ],
        },
      ]);
    });
  });

  it('continue: skips the dependents of a failed node, finishes the independent branch', async () => {
    await withWorker(registry(), async (ctx) => {
      const graphs = graphsFor(ctx);
      const g = await graphs.result(
        await graphs.start({
          failurePolicy: 'continue',
          nodes: [
            { id: 'lab', agent: 'broken-lab', text: 'Test the bolts' },
            { id: 'ship', agent: 'skyway-air', text: 'Ship the tested bolts', dependsOn: ['lab'] },
            { id: 'after-ship', agent: 'skyway-air', text: 'Tell the customer', dependsOn: ['ship'] },
            { id: 'tour', agent: 'arctic-tours', text: 'Book a team outing' },
          ],
        }),
      );
      assert.equal(g.outcome?.kind, 'FAILED');
      assert.equal(node(g, 'lab').outcome, 'REMOTE_FAILED');
      assert.equal(node(g, 'ship').status, 'SKIPPED');
      assert.deepEqual(node(g, 'ship').reasons, ['depends on lab, which ended REMOTE_FAILED']);
      assert.deepEqual(node(g, 'after-ship').reasons, ['depends on ship, which was skipped']);
      assert.equal(node(g, 'tour').outcome, 'ACCEPTED');
      assert.match(g.outcome?.reasons[0] ?? '', /node lab ended REMOTE_FAILED: .*Tensile tester offline/);
    });
  });

  it('fail-fast: cancels the running node (and its remote task) and skips the rest', async () => {
    await withWorker(registry(), async (ctx) => {
      const graphs = graphsFor(ctx);
      const g = await graphs.result(
        await graphs.start({
          failurePolicy: 'fail-fast',
          nodes: [
            { id: 'long-tour', agent: 'slow-tours', text: 'Book the long tour' },
            { id: 'lab', agent: 'broken-lab', text: 'Test the bolts' },
            { id: 'ship', agent: 'skyway-air', text: 'Ship them', dependsOn: ['lab'] },
          ],
        }),
      );
      assert.equal(g.outcome?.kind, 'FAILED');
      assert.equal(node(g, 'lab').outcome, 'REMOTE_FAILED');
      assert.equal(node(g, 'long-tour').outcome, 'CANCELED');
      assert.equal((await detail(ctx, `${g.id}/long-tour`)).remote.state, 'TASK_STATE_CANCELED', 'the remote task was cancelled');
      assert.equal(node(g, 'ship').status, 'SKIPPED');
      assert.deepEqual(node(g, 'ship').reasons, ['fail-fast: node lab ended REMOTE_FAILED']);
      assert.deepEqual(g.cancel, { by: 'fail-fast', reason: 'fail-fast: node lab ended REMOTE_FAILED' });
    });
  });

  it('adds a follow-up while the graph runs: a refinement is a new task in the same context, a new version of the artifact', async () => {
    await withWorker(registry(), async (ctx) => {
      const graphs = graphsFor(ctx);
      const id = await graphs.start({ nodes: [{ id: 'sailboat', agent: 'image-studio', text: 'Draw a sailboat on a calm sea' }] });
      await graphs.until(id, (g) => node(g, 'sailboat').status === 'RUNNING', 20);
      // Refused: another tenant (as if the graph did not exist), an unknown dependency, a refinement
      // sent to another agent, an unknown agent.
      await assert.rejects(
        graphsFor(ctx, 'globex', 'mallory').addFollowUp(id, { id: 'x', agent: 'image-studio', text: 'hi' }),
        (e: unknown) => e instanceof GraphNotFoundError && e.message === `no graph with id ${id}`,
      );
      await assert.rejects(
        graphs.addFollowUp(id, { id: 'x', agent: 'image-studio', text: 'hi', dependsOn: ['nope'] }),
        (e: unknown) => e instanceof RequestRefusedError && /node x: depends on unknown node nope/.test(e.message),
      );
      await assert.rejects(
        graphs.addFollowUp(id, { id: 'x', agent: 'skyway-air', text: 'hi', refines: 'sailboat' }),
        /a refinement goes to the same agent/,
      );
      await assert.rejects(graphs.addFollowUp(id, { id: 'x', agent: 'paint-bot', text: 'hi' }), /node x: unknown agent paint-bot/);
      await assert.rejects(
        graphs.addFollowUp(id, { id: 'sailboat', agent: 'image-studio', text: 'again' }),
        /node sailboat: the id is used twice/,
      );

      assert.deepEqual(
        await graphs.addFollowUp(id, { id: 'red-boat', agent: 'image-studio', text: 'Make the boat red', refines: 'sailboat' }),
        { nodeId: 'red-boat', delegationId: `${id}/red-boat` },
      );
      releaseSailboat();
      const g = await graphs.result(id);
      assert.equal(g.outcome?.kind, 'ACCEPTED');
      assert.equal(node(g, 'red-boat').followUp, true);
      assert.deepEqual(node(g, 'red-boat').dependsOn, ['sailboat']);
      const [first, red] = await Promise.all([detail(ctx, `${id}/sailboat`), detail(ctx, `${id}/red-boat`)]);
      assert.deepEqual(work.find((w) => w.taskId === red.remote.taskId)?.referenceTaskIds, [first.remote.taskId]);
      assert.equal(red.remote.contextId, first.remote.contextId);
      assert.notEqual(red.remote.taskId, first.remote.taskId);
      const svg = Buffer.from(red.artifacts[0]?.parts?.[0]?.raw ?? '', 'base64').toString('utf8');
      assert.match(svg, /fill="red"/);
      // Lineage: one context, one name, two versions; the newest accepted one is the red boat.
      assert.equal(g.lineage.length, 1);
      const picture = g.lineage[0];
      assert.equal(picture?.name, 'picture');
      assert.equal(picture?.contextId, first.remote.contextId);
      assert.deepEqual(
        picture?.versions.map((v) => [v.version, v.nodeId, v.taskId, v.accepted]),
        [
          [1, 'sailboat', first.remote.taskId, true],
          [2, 'red-boat', red.remote.taskId, true],
        ],
      );
      assert.equal(picture?.versionCount, 2);
      assert.notEqual(picture?.versions[0]?.artifactId, picture?.versions[1]?.artifactId);
      assert.equal(picture?.latestAccepted, red.artifacts[0]?.artifactId);
    });
  });
});
