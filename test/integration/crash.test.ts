/**
 * A worker process killed with SIGKILL, then started again: during a send whose response was lost,
 * and during observation. The delegation finishes, and the agent saw exactly one task created.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { BatonClient } from '../../src/client/baton-client';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { CliProcess, userEnv } from '../helpers/cli';
import { testServer } from '../helpers/temporal';

const REQUEST = [{ text: 'Verify inspection report inspection-92 against order A1042 for SN-4471', mediaType: 'text/plain' }];

/** A worker in its own process, as in production, for a config that names one agent. */
async function workerFor(agentUrl: string, taskQueue: string): Promise<{ start(): Promise<CliProcess>; baton: BatonClient; close(): Promise<void> }> {
  const { address, namespace } = await testServer();
  const config = join(mkdtempSync(join(tmpdir(), 'baton-crash-')), 'baton.config.yaml');
  writeFileSync(config, [`temporal: { address: "${address}", taskQueue: "${taskQueue}" }`, 'agents:', `  supplier-qa: { card: "${agentUrl}", allowHttp: true, allowPrivateNetwork: true }`].join('\n'));
  const connection = await Connection.connect({ address });
  return {
    async start() {
      const worker = new CliProcess(['worker'], userEnv({ BATON_CONFIG: config, BATON_LOG_FORMAT: 'json' }));
      await worker.waitFor('"msg":"worker started"', 'stderr');
      return worker;
    },
    baton: new BatonClient(connection, { namespace, taskQueue, caller: { tenant: 'acme', user: 'ops-1' } }),
    close: () => connection.close(),
  };
}

async function kill(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  assert.equal((await worker.exited).signal, 'SIGKILL');
}

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
    const stack = await workerFor(agent.url, `crash-send-${randomUUID()}`);
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
      assert.ok(record.notes.some((n) => n === `turn ${id}/turn-1: its response was lost; the agent already had it, so it was not sent again`), record.notes.join('\n'));
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
    const stack = await workerFor(agent.url, `crash-observe-${randomUUID()}`);
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
