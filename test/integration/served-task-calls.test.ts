/**
 * What one served task costs Temporal: a read is one describe (the ownership check) and one Query;
 * an answer to the task's question is the Update alone, with no second describe; a watch checks
 * ownership on the history it follows anyway, with no describe; a send that asks not to wait is
 * answered from the start alone. Counted on the wire, by a gRPC interceptor on the connection the
 * service uses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { BatonClient } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { ServedTasks } from '../../src/served-tasks/served-tasks';
import { DelegationRunner } from '../../src/served-tasks/task-runners';
import type { WireTask } from '../../src/served-tasks/task-view';
import { loopbackAgent, testServer, withWorker } from '../helpers/temporal';
import { serveForTest, SUPPLIER_CHECK } from '../helpers/served';
import { ConfigSchema } from '../../src/config/schema';
import { Message, Task, type SendMessageRequest } from '@a2a-js/sdk';

const caller = { tenant: 'acme', user: 'ops-1' };
const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';

describe('a served task, counted on the wire', () => {
  let agent: RunningAgent;
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 10 }));
  });
  after(() => agent.close());

  it('reads with one describe and one Query, and answers with the Update alone', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.cardUrl) }, async (ctx) => {
      const { connection, calls } = await countingConnection();
      try {
        const baton = new BatonClient(connection, { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller });
        const tasks = new ServedTasks({ service: 'qa', baton, runner: new DelegationRunner(baton, { agent: 'supplier-qa' }) });
        const id = `a2a-calls-${process.pid}-${Date.now()}`;
        // No serial number: the agent asks for it.
        await tasks.start(caller, id, [{ text: 'Verify inspection-92 against order A1042' }], `ctx-${id}`);
        let task: WireTask;
        do task = await tasks.view(id, caller);
        while (task.status.state !== 'TASK_STATE_INPUT_REQUIRED');

        calls.length = 0;
        const read = await tasks.read(id, caller);
        assert.deepEqual(calls, ['DescribeWorkflowExecution', 'QueryWorkflow'], 'a read: the ownership check, then the Query');
        const pending = read.state.pending;
        assert.equal(pending?.kind, 'input');

        calls.length = 0;
        await tasks.answer(caller, pending, [{ text: 'SN-4471' }], `answer-${id}`);
        assert.equal(calls.includes('DescribeWorkflowExecution'), false, `no second describe before the Update: ${calls.join()}`);
        assert.equal(calls[0], 'UpdateWorkflowExecution');
        assert.deepEqual(
          new Set(calls),
          new Set(calls.length > 1 ? ['UpdateWorkflowExecution', 'PollWorkflowExecutionUpdate'] : ['UpdateWorkflowExecution']),
        );

        do task = await tasks.view(id, caller);
        while (task.status.state !== 'TASK_STATE_COMPLETED');
        calls.length = 0;
        await tasks.read(id, caller);
        assert.deepEqual(
          calls,
          ['DescribeWorkflowExecution', 'GetWorkflowExecutionHistory'],
          'an ended task: its result instead of a Query',
        );
      } finally {
        await connection.close();
      }
    });
  });

  it('watches without a describe, reading only when the history changed', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.cardUrl) }, async (ctx) => {
      const { connection, calls } = await countingConnection();
      try {
        const baton = new BatonClient(connection, { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller });
        const tasks = new ServedTasks({ service: 'qa', baton, runner: new DelegationRunner(baton, { agent: 'supplier-qa' }) });
        const id = `a2a-watch-${process.pid}-${Date.now()}`;
        await tasks.start(caller, id, [{ text: 'Verify inspection-92 against order A1042' }], `ctx-${id}`);
        const watch = tasks.watch(id, caller);
        const wait = { maxWaitMs: 20_000, failPauseMs: 100 };
        calls.length = 0;
        const seen: string[] = [];
        let task = await watch.read();
        for (; task.status.state !== 'TASK_STATE_INPUT_REQUIRED'; task = await watch.read()) {
          seen.push(task.status.state);
          assert.equal(await watch.changed(wait), true, 'woken by a change, not by the wait running out');
        }
        const queries = calls.filter((c) => c === 'QueryWorkflow').length;
        assert.deepEqual(
          calls.filter((c) => c === 'DescribeWorkflowExecution'),
          [],
          `no describe for the whole watch (ownership from the history's first event): ${calls.join()}`,
        );
        assert.ok(queries >= 1 && queries <= seen.length + 1, `a Query per change seen, no timed reads: ${calls.join()}`);

        // Once the delegation has done what it does on asking, nothing happens until the answer: a wait
        // then runs its time out, and the task is not read meanwhile.
        let quiet = false;
        for (let i = 0; i < 5 && !quiet; i++) {
          quiet = !(await watch.changed({ ...wait, maxWaitMs: 1_500 }));
          if (!quiet) task = await watch.read();
        }
        assert.equal(quiet, true, 'a task waiting for its answer goes quiet');
        assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');

        const pending = (await tasks.read(id, caller)).state.pending;
        assert.ok(pending);
        const answered = (async () => {
          while (task.status.state !== 'TASK_STATE_COMPLETED') {
            await watch.changed(wait);
            task = await watch.read();
          }
          return task;
        })();
        await tasks.answer(caller, pending, [{ text: 'SN-4471' }], `answer-${id}`);
        const done = await answered;
        assert.equal(done.artifacts?.length ? 'with artifacts' : 'none', 'with artifacts');
      } finally {
        await connection.close();
      }
    });
  });

  it("refuses to watch another tenant's or service's task as it refuses an unknown one, reading one page", async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.cardUrl) }, async (ctx) => {
      const { connection, calls } = await countingConnection();
      try {
        const served = (tenant: string, service: string) => {
          const baton = new BatonClient(connection, {
            namespace: ctx.client.options.namespace,
            taskQueue: ctx.taskQueue,
            caller: { tenant, user: 'ops-1' },
          });
          return new ServedTasks({ service, baton, runner: new DelegationRunner(baton, { agent: 'supplier-qa' }) });
        };
        const tasks = served('acme', 'qa');
        const id = `a2a-owner-${process.pid}-${Date.now()}`;
        await tasks.start(caller, id, [{ text: 'Verify inspection-92 against order A1042 for SN-4471' }], `ctx-${id}`);
        const mine = await tasks.watch(id, caller).read();
        assert.equal(mine.contextId, `ctx-${id}`, "the owner's watch has the task's context, from its first event");

        const refused = async (watcher: ServedTasks, who: { tenant: string; user: string }, taskId: string): Promise<string> => {
          calls.length = 0;
          let message = '';
          await assert.rejects(watcher.watch(taskId, who).read(), (e: Error) => {
            message = e.message;
            return e instanceof TaskNotFoundError;
          });
          assert.ok(calls.filter((c) => c === 'GetWorkflowExecutionHistory').length <= 1, `one page at most: ${calls.join()}`);
          assert.equal(calls.includes('DescribeWorkflowExecution'), false, calls.join());
          assert.equal(calls.includes('QueryWorkflow'), false, `nothing of the task is read: ${calls.join()}`);
          return message;
        };
        const unknown = await refused(tasks, caller, `${id}-nothing`);
        assert.equal(unknown, `no task ${id}-nothing`);
        const globex = { tenant: 'globex', user: 'ops-9' };
        assert.equal(await refused(served('globex', 'qa'), globex, id), `no task ${id}`, "another tenant's: as if unknown");
        assert.equal(await refused(served('acme', 'other'), caller, id), `no task ${id}`, "another service's: as if unknown");
      } finally {
        await connection.close();
      }
    });
  });

  it('is answered SUBMITTED from the start alone; the same message again, with the task as it is', async () => {
    const agents = { 'supplier-qa': loopbackAgent(agent.cardUrl) };
    await withWorker(agents, async (ctx) => {
      const { connection, calls } = await countingConnection();
      const config = ConfigSchema.parse({ agents, serve: { services: { 'supplier-check': SUPPLIER_CHECK } } });
      const served = await serveForTest(ctx, config, { acme: ACME, globex: GLOBEX }, 0, { connection });
      try {
        const client = await served.connect('supplier-check', 'JSONRPC');
        const auth = { serviceParameters: { Authorization: `Bearer ${ACME}` } };
        const send: SendMessageRequest = {
          tenant: '',
          message: Message.fromJSON({
            messageId: `now-${process.pid}-${Date.now()}`,
            role: 'ROLE_USER',
            parts: [{ text: 'Verify inspection-92 against order A1042 for SN-4471' }],
          }),
          configuration: { acceptedOutputModes: [], returnImmediately: true, historyLength: 5, taskPushNotificationConfig: undefined },
          metadata: undefined,
        };
        calls.length = 0;
        const first = Task.toJSON((await client.sendMessage(send, auth)) as Task) as WireTask;
        assert.equal(first.status.state, 'TASK_STATE_SUBMITTED');
        assert.match(first.id, /^a2a-supplier-check-[0-9a-f]{32}$/);
        assert.deepEqual(first.history ?? [], [], 'nothing sent to the agent yet');
        assert.equal((first.metadata as { batonStatus?: string }).batonStatus, 'STARTING');
        assert.deepEqual(calls, ['StartWorkflowExecution'], `answered from the start alone: no read of the task, ${calls.join()}`);

        // The task goes on without anyone waiting; sent again (a lost answer), it is read as it is.
        const record = await ctx.client.workflow.getHandle(first.id).result();
        assert.equal((record as { outcome?: { kind: string } }).outcome?.kind, 'ACCEPTED');
        calls.length = 0;
        const again = Task.toJSON((await client.sendMessage(send, auth)) as Task) as WireTask;
        assert.equal(again.id, first.id);
        assert.equal(again.status.state, 'TASK_STATE_COMPLETED');
        assert.equal(calls[0], 'StartWorkflowExecution');
        assert.ok(calls.includes('GetWorkflowExecutionHistory'), `a task found is read: ${calls.join()}`);
      } finally {
        await served.close();
        await connection.close();
      }
    });
  });
});

/** A connection that lists the gRPC methods called through it, in order. */
async function countingConnection(): Promise<{ connection: Connection; calls: string[] }> {
  const calls: string[] = [];
  const counting: Interceptor = (options, next) => {
    calls.push(options.method_definition.path.split('/').pop() ?? '?');
    return new InterceptingCall(next(options));
  };
  const { address } = await testServer();
  return { connection: await Connection.connect({ address, interceptors: [counting as never] }), calls };
}
