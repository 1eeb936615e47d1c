/**
 * The refund process end to end, the way the shop would test it: a real Temporal server (from
 * TEMPORAL_ADDRESS, or one `baton/dev` starts), the supplier-qa demo agent served by the `baton` CLI,
 * and the shop's worker built with `withBaton`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { BatonClient } from 'baton-a2a';
import { startTemporal, type RunningServer } from 'baton-a2a/dev';
import { createShopWorker } from '../src/worker';
import { refundApproval } from '../src/workflows';

/** Starts `baton serve-agents` on a free port and resolves with the card URL it prints. */
function serveSupplierQa(): Promise<{ card: string; child: ChildProcess }> {
  const manifest = require.resolve('baton-a2a/package.json');
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { baton: string } }).bin.baton;
  const child = spawn(process.execPath, [join(dirname(manifest), bin), 'serve-agents', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolveCard, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const card = /card at (\S+)/.exec(out)?.[1];
      if (card) resolveCard({ card, child });
    });
    child.once('exit', (code) => reject(new Error(`baton serve-agents exited with ${code} before serving: ${out}`)));
  });
}

describe('refund approval with a supplier verification delegated through Baton', () => {
  let server: RunningServer;
  let agent: ChildProcess;
  let worker: Worker;
  let running: Promise<void>;
  let closeWorker: () => Promise<void>;
  let connection: Connection;
  let client: Client;
  const taskQueue = `refunds-${randomUUID()}`;

  before(async () => {
    server = await startTemporal({ uiPort: false });
    const served = await serveSupplierQa();
    agent = served.child;
    ({ worker, close: closeWorker } = await createShopWorker({
      address: server.address,
      namespace: server.namespace,
      taskQueue,
      supplierQaCard: served.card,
    }));
    running = worker.run();
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection, namespace: server.namespace });
  });

  after(async () => {
    worker.shutdown();
    await running;
    await closeWorker();
    await connection.close();
    agent.kill('SIGTERM');
    await server.stop();
  });

  it('approves a small refund: the order looked up over MCP, the report verified, the warehouse answering by Signal', async () => {
    const refundId = `refund-${randomUUID()}`;
    const decision = await client.workflow.execute(refundApproval, {
      workflowId: refundId,
      taskQueue,
      args: [{ refundId, orderId: 'A1042', reportId: 'inspection-92', amount: 120, currency: 'EUR' }],
    });
    assert.equal(decision.decision, 'approved');
    assert.equal(decision.verification?.outcome, 'ACCEPTED');
    assert.ok(decision.verification?.remoteTaskId);
    assert.match(decision.reasons.join('\n'), /within the automatic limit/);

    // The order system was asked first, through Baton's MCP activity: its answer is in the history.
    const history = await client.workflow.getHandle(refundId).fetchHistory();
    const activities = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    assert.deepEqual(activities, ['callMcpTool', 'decideRefund']);

    // The delegation is a workflow of its own, readable with Baton's client (or `baton show`).
    const baton = new BatonClient(connection, { namespace: server.namespace, taskQueue, caller: { tenant: 'shop', user: 'auditor' } });
    const record = await baton.show(decision.verification?.delegationId ?? '');
    assert.equal(record.turns.length, 2, 'the first request, then the warehouse answer');
    assert.equal((record.artifacts[0]?.parts?.[0]?.data as { serial?: string }).serial, 'SN-4471', 'the serial the order system gave');
    assert.deepEqual(record.refusedSignals, []);
  });

  it('escalates a large refund to a manager after an accepted verification', async () => {
    const refundId = `refund-${randomUUID()}`;
    const decision = await client.workflow.execute(refundApproval, {
      workflowId: refundId,
      taskQueue,
      args: [{ refundId, orderId: 'A1077', reportId: 'inspection-93', amount: 1800, currency: 'EUR' }],
    });
    assert.equal(decision.verification?.outcome, 'ACCEPTED');
    assert.equal(decision.decision, 'escalated');
  });

  it('denies the refund when the supplier rejects the request, keeping its reason', async () => {
    const refundId = `refund-${randomUUID()}`;
    const decision = await client.workflow.execute(refundApproval, {
      workflowId: refundId,
      taskQueue,
      args: [{ refundId, orderId: 'A1042', amount: 120, currency: 'EUR' }],
    });
    assert.equal(decision.decision, 'denied');
    assert.equal(decision.verification?.outcome, 'REMOTE_REJECTED');
    assert.match(decision.reasons.join('\n'), /Name an order .* and an inspection report/);
  });

  it('denies before delegating when the order system knows no such order, or less was paid', async () => {
    const refund = (orderId: string, amount: number) => {
      const refundId = `refund-${randomUUID()}`;
      return client.workflow
        .execute(refundApproval, {
          workflowId: refundId,
          taskQueue,
          args: [{ refundId, orderId, reportId: 'inspection-92', amount, currency: 'EUR' }],
        })
        .then(async (decision) => ({ decision, history: await client.workflow.getHandle(refundId).fetchHistory() }));
    };
    const unknown = await refund('A9999', 50);
    assert.equal(unknown.decision.decision, 'denied');
    assert.deepEqual(unknown.decision.reasons, ['order lookup: no order A9999 on record']);
    const overPaid = await refund('A1042', 300);
    assert.deepEqual(overPaid.decision.reasons, ['a refund of 300 is more than the 129 EUR paid for order A1042']);
    for (const { decision, history } of [unknown, overPaid]) {
      assert.equal(decision.verification, undefined);
      assert.ok(!(history.events ?? []).some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes), 'no delegation started');
    }
  });
});
