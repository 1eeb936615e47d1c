/**
 * A worker process killed with SIGKILL while two graph nodes run in parallel, then started again: the
 * graph finishes with every node, and each agent saw exactly one task per node.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { TRIP_TO_HELSINKI } from '../../src/demo/graph-specs';
import { arcticTours, harborHotel, skywayAir, type WorkLog } from '../../src/demo/trip-agents';
import { kill, workerProcesses } from '../helpers/worker-process';

describe('a graph survives its worker', () => {
  it('SIGKILL while hotel and snowmobile run: no node lost, none started twice', async () => {
    const started: Parameters<WorkLog>[0][] = [];
    let bothRunning: () => void = () => {};
    const parallel = new Promise<void>((r) => (bothRunning = r));
    const onWork: WorkLog = (w) => {
      if (w.phase !== 'start') return;
      started.push(w);
      if (started.some((s) => s.agent === 'harbor-hotel') && started.some((s) => s.agent === 'arctic-tours')) bothRunning();
    };
    const agents: RunningAgent[] = [];
    for (const def of [skywayAir({ workMs: 50, onWork }), harborHotel({ workMs: 2_000, onWork }), arcticTours({ workMs: 2_000, onWork })])
      agents.push(await startAgentServer(def));
    const stack = await workerProcesses(Object.fromEntries(agents.map((a) => [a.name, a.url])), `graph-crash-${randomUUID()}`);
    try {
      const first = await stack.start();
      const id = await stack.graphs.start(TRIP_TO_HELSINKI, { id: `trip-${randomUUID()}` });
      await parallel;
      await kill(first);
      const second = await stack.start();
      const g = await stack.graphs.result(id);
      second.child.kill('SIGTERM');
      await second.exited;

      assert.equal(g.outcome?.kind, 'ACCEPTED', JSON.stringify(g.outcome));
      assert.deepEqual(
        g.nodes.map((n) => [n.id, n.outcome]),
        [
          ['flight', 'ACCEPTED'],
          ['hotel', 'ACCEPTED'],
          ['snowmobile', 'ACCEPTED'],
          ['spa', 'ACCEPTED'],
        ],
      );
      // One remote task per node, at the agents themselves.
      const tasksAt = (agent: string) => new Set(started.filter((s) => s.agent === agent).map((s) => s.taskId)).size;
      assert.deepEqual([tasksAt('skyway-air'), tasksAt('harbor-hotel'), tasksAt('arctic-tours')], [1, 2, 1]);
      assert.deepEqual(new Set(g.nodes.map((n) => n.remote.taskId)).size, 4);
      // One delegation workflow per node, started once though the batch that started them may run twice.
      const children: string[] = [];
      for await (const wf of stack.graphs.client.workflow.list({ query: `WorkflowType = 'delegationWorkflow' AND BatonTenant = 'acme'` })) {
        if (wf.workflowId.startsWith(`${id}/`)) children.push(wf.workflowId);
      }
      assert.deepEqual(
        children.sort(),
        ['flight', 'hotel', 'snowmobile', 'spa'].map((n) => `${id}/${n}`),
      );
    } finally {
      await stack.close();
      for (const a of agents) await a.close();
    }
  });
});
