/**
 * Delegations inside a user's own workflows, on a real server with the real supplier-qa agent: the
 * worker is built with `withBaton`, the parent uses `baton/workflow`'s `delegate`, and answers come
 * from another workflow by Signal.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Worker } from '@temporalio/worker';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { portalGate } from '../../src/demo/auth-gate';
import type { AgentEntry } from '../../src/config/schema';
import { ConfigError } from '../../src/config/load';
import { batonPlugin } from '../../src/embed/baton-plugin';
import { withBaton } from '../../src/embed/with-baton';
import { SearchAttributesMissingError } from '../../src/errors/temporal-errors';
import { installTemporalRuntime } from '../../src/runtime/logger';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { historyText, loopbackAgent, testServer, withWorker } from '../helpers/temporal';
import { answerBySignal, delegateAndWait, sendRawAnswer, stockWithCredential, verifyWithLookup } from '../workflows/embedding';

const ASK = [{ text: 'Verify inspection report inspection-92 against order A1042' }];
const CALLER = { tenant: 'shop', user: 'refund-desk' };
const quiet = pino({ level: 'warn' }, pino.destination(2));

interface Ctx {
  client: Client;
  taskQueue: string;
  /** Steers delegations as the shop's tenant. */
  baton: BatonClient;
}

/** A user's worker: their workflows (test/workflows/embedding) plus Baton, added by one call. */
async function withUserWorker<T>(
  agents: Record<string, AgentEntry>,
  fn: (ctx: Ctx) => Promise<T>,
  opts: { withoutBaton?: boolean; asPlugin?: boolean } = {},
): Promise<T> {
  installTemporalRuntime(quiet);
  const { address, namespace } = await testServer();
  const taskQueue = `shop-${randomUUID()}`;
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const base = { connection: native, namespace, taskQueue, workflowsPath: require.resolve('../workflows/embedding'), activities: {} };
    const options = opts.withoutBaton
      ? base
      : opts.asPlugin
        ? { ...base, plugins: [batonPlugin({ config: { agents }, logger: quiet })] }
        : await withBaton(base, { config: { agents }, logger: quiet });
    const worker = await Worker.create({ ...options, shutdownGraceTime: '2s' });
    const client = new Client({ connection, namespace });
    const baton = new BatonClient(connection, { namespace, taskQueue, caller: CALLER });
    return await worker.runUntil(fn({ client, taskQueue, baton }));
  } finally {
    await connection.close();
    await native.close();
  }
}

/** The shop's refund check: a parent workflow that delegates to supplier-qa and answers by Signal. */
const refund = (client: Client, taskQueue: string, batonTaskQueue?: string) =>
  client.workflow.execute(verifyWithLookup, {
    workflowId: `refund-${randomUUID()}`,
    taskQueue,
    args: [{ parts: ASK, caller: CALLER, serial: 'SN-4471', ...(batonTaskQueue ? { batonTaskQueue } : {}) }],
  });

describe('embedding: delegations in your own workflows', () => {
  let agent: RunningAgent;
  const tasks: string[] = [];
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 50, onTaskCreated: (id) => tasks.push(id) }));
  });
  after(async () => {
    await agent.close();
  });
  const qa = (): Record<string, AgentEntry> => ({ 'supplier-qa': loopbackAgent(agent.url) });

  it('delegates from a parent workflow; a second workflow answers by Signal; the result is typed', async () => {
    await withUserWorker(qa(), async ({ client, taskQueue, baton }) => {
      const parentId = `refund-${randomUUID()}`;
      const result = await client.workflow.execute(verifyWithLookup, {
        workflowId: parentId,
        taskQueue,
        args: [{ parts: ASK, caller: CALLER, serial: 'SN-4471' }],
      });
      const id = `${parentId}/supplier-qa-1`;
      assert.equal(result.id, id, 'deterministic child id');
      assert.equal(result.outcome, 'ACCEPTED');
      assert.equal(result.accepted, true);
      assert.equal(result.remote.state, 'TASK_STATE_COMPLETED');
      assert.ok(result.remote.taskId && tasks.includes(result.remote.taskId), 'the remote task is the one the agent created');
      assert.equal(
        (result.artifacts[0]?.parts?.[0]?.data as { serial?: string }).serial,
        'SN-4471',
        'the signalled answer reached the remote task',
      );
      const record = await baton.show(id);
      assert.deepEqual(
        record.turns.map((t) => t.messageId),
        [`${id}/turn-1`, `${id}/turn-2`],
      );
      assert.deepEqual(record.refusedSignals, []);
      // The answering workflow ran and finished.
      const lookup = await client.workflow.getHandle(`${id}/request-1/lookup`).describe();
      assert.equal(lookup.status.name, 'COMPLETED');
    });
  });

  it('cancelling the user workflow cancels the delegation and the remote task', async () => {
    await withUserWorker(qa(), async ({ client, taskQueue, baton }) => {
      const parentId = `refund-${randomUUID()}`;
      const parent = await client.workflow.start(delegateAndWait, {
        workflowId: parentId,
        taskQueue,
        args: [{ parts: ASK, caller: CALLER }],
      });
      const id = `${parentId}/supplier-qa-1`;
      const waiting = await untilStarted(baton, id, (r) => r.status === 'WAITING_INPUT');
      await parent.cancel();
      const result = await parent.result();
      assert.equal(result.outcome, 'CANCELED');
      assert.equal(result.remote.state, 'TASK_STATE_CANCELED', 'the agent answered CancelTask with CANCELED');
      assert.equal(result.remote.taskId, waiting.remote.taskId);
      assert.deepEqual(result.reasons, ['the workflow was cancelled', 'remote task CANCELED']);
      const record = await baton.show(id);
      assert.equal(record.outcome?.kind, 'CANCELED');
      assert.equal(record.cancel?.by, 'temporal');
    });
  });

  it('records refused Signal answers (stale request, other tenant, malformed) in the status, then takes a good one', async () => {
    await withUserWorker(qa(), async ({ client, taskQueue, baton }) => {
      const parentId = `refund-${randomUUID()}`;
      const parent = await client.workflow.start(delegateAndWait, {
        workflowId: parentId,
        taskQueue,
        args: [{ parts: ASK, caller: CALLER }],
      });
      const id = `${parentId}/supplier-qa-1`;
      await untilStarted(baton, id, (r) => r.status === 'WAITING_INPUT');
      const signalFrom = (args: Parameters<typeof answerBySignal>[0]) =>
        client.workflow.execute(answerBySignal, { workflowId: `answer-${randomUUID()}`, taskQueue, args: [args] });
      await signalFrom({ delegationId: id, requestId: `${id}/request-9`, parts: [{ text: 'SN-1' }], caller: CALLER });
      await signalFrom({
        delegationId: id,
        requestId: `${id}/request-1`,
        parts: [{ text: 'SN-666' }],
        caller: { tenant: 'globex', user: 'mallory' },
      });
      await client.workflow.execute(sendRawAnswer, {
        workflowId: `answer-${randomUUID()}`,
        taskQueue,
        args: [{ delegationId: id, payload: { requestId: 42 } }],
      });
      const refused = await baton.until(id, (r) => r.refusedSignals.length === 3, 50);
      assert.deepEqual(refused.refusedSignals, [
        {
          signal: 'answer',
          requestId: `${id}/request-9`,
          by: 'shop/refund-desk',
          reason: `request ${id}/request-9 is not the pending one (${id}/request-1)`,
        },
        {
          signal: 'answer',
          requestId: `${id}/request-1`,
          by: 'globex/mallory',
          reason: 'caller of tenant globex has no access to this delegation',
        },
        { signal: 'answer', reason: 'invalid answer: Invalid input: expected string, received number' },
      ]);
      assert.equal(refused.status, 'WAITING_INPUT', 'a refused Signal changes nothing else');
      assert.equal(refused.turns.length, 1);

      await signalFrom({ delegationId: id, requestId: `${id}/request-1`, parts: [{ text: 'SN-4471' }], caller: CALLER });
      const result = await parent.result();
      assert.equal(result.outcome, 'ACCEPTED');
      assert.equal(result.record?.refusedSignals.length, 3);
    });
  });

  it('authorizes by Signal from another workflow, naming the credential, never the secret', async () => {
    const secret = `portal-${process.pid}-embedded`;
    process.env.BATON_TEST_EMBEDDED_TOKEN = secret;
    const gate = await startAgentServer(portalGate(secret));
    try {
      const portal = loopbackAgent(gate.url, { credentials: { 'portal-token': { fromEnv: 'BATON_TEST_EMBEDDED_TOKEN' } } });
      await withUserWorker({ 'portal-gate': portal }, async ({ client, taskQueue }) => {
        const parentId = `stock-${randomUUID()}`;
        const result = await client.workflow.execute(stockWithCredential, {
          workflowId: parentId,
          taskQueue,
          args: [{ caller: CALLER, credential: 'portal-token' }],
        });
        assert.equal(result.outcome, 'ACCEPTED');
        assert.equal(result.artifacts[0]?.name, 'stock');
        for (const id of [result.id, parentId]) {
          const history = await historyText(client, id);
          assert.ok(history.includes('portal-token'), `the credential's name is in ${id}'s history`);
          assert.ok(!history.includes('BATON_TEST_EMBEDDED_TOKEN'), `the worker's variable is not in ${id}'s history`);
          assert.ok(!history.includes(secret), `the secret is not in ${id}'s history`);
        }
      });
    } finally {
      await gate.close();
    }
  });

  it("runs the delegation on Baton's own task queue and worker when asked to", async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.url) }, async (batonWorker) => {
      await withUserWorker(
        qa(),
        async ({ client, taskQueue }) => {
          const parentId = `refund-${randomUUID()}`;
          const result = await client.workflow.execute(verifyWithLookup, {
            workflowId: parentId,
            taskQueue,
            args: [{ parts: ASK, caller: CALLER, serial: 'SN-4471', batonTaskQueue: batonWorker.taskQueue }],
          });
          assert.equal(result.outcome, 'ACCEPTED');
          const child = await client.workflow.getHandle(`${parentId}/supplier-qa-1`).describe();
          assert.equal(child.taskQueue, batonWorker.taskQueue, 'the delegation ran on the Baton queue');
        },
        { withoutBaton: true },
      );
    });
  });

  it('refuses to add Baton over activities with the same names, naming them', async () => {
    await assert.rejects(
      withBaton({ taskQueue: 'x', activities: { sendTurn: () => 1 } }, { config: { agents: {} }, logger: quiet }),
      (err: unknown) => err instanceof ConfigError && /activities named sendTurn/.test(err.message) && /own task queue/.test(err.message),
    );
  });

  it('does the same as a worker plugin, and a plugin on a namespace without Baton refuses to start', async () => {
    await withUserWorker(qa(), async ({ client, taskQueue }) => assert.equal((await refund(client, taskQueue)).outcome, 'ACCEPTED'), {
      asPlugin: true,
    });
    const { address } = await testServer();
    const bare = `bare-plugin-${randomUUID().slice(0, 8)}`;
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    try {
      await connection.workflowService.registerNamespace({ namespace: bare, workflowExecutionRetentionPeriod: msToTs('1 day') });
      await assert.rejects(
        Worker.create({
          connection: native,
          namespace: bare,
          taskQueue: 'shop',
          workflowsPath: require.resolve('../workflows/embedding'),
          plugins: [batonPlugin({ config: { agents: qa() }, logger: quiet })],
        }),
        (err: unknown) => err instanceof SearchAttributesMissingError && /register them with `npx baton setup`/.test(err.message),
      );
    } finally {
      await connection.close();
      await native.close();
    }
  });
});

/** Waits for a child delegation that may not exist yet (the parent starts it). */
async function untilStarted(baton: BatonClient, id: string, done: (r: DelegationRecord) => boolean): Promise<DelegationRecord> {
  for (;;) {
    try {
      return await baton.until(id, done, 50);
    } catch (err) {
      if (!(err instanceof Error) || err.name !== 'DelegationNotFoundError') throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
