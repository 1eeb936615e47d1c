/**
 * What one served task costs Temporal: a read is one describe (the ownership check) and one Query;
 * an answer to the task's question is the Update alone, with no second describe. Counted on the
 * wire, by a gRPC interceptor on the connection the service uses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { BatonClient } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { ServedTasks } from '../../src/served-tasks/served-tasks';
import { DelegationRunner } from '../../src/served-tasks/task-runners';
import type { WireTask } from '../../src/served-tasks/task-view';
import { loopbackAgent, testServer, withWorker } from '../helpers/temporal';

const caller = { tenant: 'acme', user: 'ops-1' };

describe('a served task, counted on the wire', () => {
  let agent: RunningAgent;
  before(async () => {
    agent = await startAgentServer(supplierQa({ workMs: 10 }));
  });
  after(() => agent.close());

  it('reads with one describe and one Query, and answers with the Update alone', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(agent.cardUrl) }, async (ctx) => {
      const calls: string[] = [];
      const counting: Interceptor = (options, next) => {
        calls.push(options.method_definition.path.split('/').pop() ?? '?');
        return new InterceptingCall(next(options));
      };
      const { address } = await testServer();
      const connection = await Connection.connect({ address, interceptors: [counting as never] });
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
});
