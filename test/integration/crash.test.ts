/**
 * A worker process killed with SIGKILL, then started again: during a send whose response was lost,
 * and during observation. The delegation finishes, and the agent saw exactly one task created.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { kill, workerProcesses } from '../helpers/worker-process';

const REQUEST = [{ text: 'Verify inspection report inspection-92 against order A1042 for SN-4471', mediaType: 'text/plain' }];

describe('worker killed with SIGKILL and restarted', () => {
  it('during a send whose response never came back: no second remote task', async () => {
    const created: string[] = [];
    let firstTask: () => void = () => {};
    const taskCreated = new Promise<void>((r) => (firstTask = r));
    let sends = 0;
    const agent = await startAgentServer(
      supplierQa({ workMs: 50, onTaskCreated: (id) => (created.push(id), firstTask()) }),
      // The first SendMessage is acted on, but its response is held until long after the kill.
      { holdResponse: (method) => (method === 'SendMessage' && ++sends === 1 ? 120_000 : 0) },
    );
    const stack = await workerProcesses({ 'supplier-qa': agent.url }, `crash-send-${randomUUID()}`);
    try {
      const first = await stack.start();
      const id = await stack.baton.start({ agent: 'supplier-qa', parts: REQUEST });
      await taskCreated;
      await kill(first);
      const second = await stack.start();
      const record = await stack.baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
      assert.equal(created.length, 1, 'the agent saw exactly one task created');
      assert.equal(record.remote.taskId, created[0]);
      assert.ok(
        record.notes.some((n) => n === `turn ${id}/turn-1: its response was lost; the agent already had it, so it was not sent again`),
        record.notes.join('\n'),
      );
      second.child.kill('SIGTERM');
      await second.exited;
    } finally {
      await stack.close();
      await agent.close();
    }
  });

  it('during observation: the wait resumes on the new worker', async () => {
    const created: string[] = [];
    const agent = await startAgentServer(supplierQa({ workMs: 6_000, onTaskCreated: (id) => created.push(id) }));
    const stack = await workerProcesses({ 'supplier-qa': agent.url }, `crash-observe-${randomUUID()}`);
    try {
      const first = await stack.start();
      const id = await stack.baton.start({ agent: 'supplier-qa', parts: REQUEST });
      await stack.baton.until(id, (r) => r.status === 'REMOTE_ACTIVE', 50);
      await kill(first);
      const second = await stack.start();
      const record = await stack.baton.result(id);
      assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
      assert.equal(created.length, 1, 'the agent saw exactly one task created');
      assert.deepEqual(record.notes, []);
      second.child.kill('SIGTERM');
      await second.exited;
    } finally {
      await stack.close();
      await agent.close();
    }
  });
});
