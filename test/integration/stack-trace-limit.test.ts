/**
 * Baton's own workers preload a cap on the frames a stack trace takes in the workflow sandbox
 * (decision 0029): the SDK source-maps a stack trace for every promise a workflow makes. The cap holds
 * on a real worker and cannot be lifted by workflow code; an embedding worker keeps the SDK's ten
 * frames unless it preloads the module; the prebuilt bundles preload it; and the stack trace query of
 * a waiting delegation still says where it waits.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import pino from 'pino';
import { startAgentServer } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import {
  BATON_PRELOADED_MODULES,
  buildWorkflowBundle,
  freshWorkflowBundlePath,
  PRELOADED_MODULES,
  STACK_TRACE_LIMIT_MODULES,
} from '../../src/runtime/bundle-workflows';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { WORKFLOW_STACK_FRAMES } from '../../workflows/stack-trace-limit';
import { batonFor, loopbackAgent, testServer, withWorker } from '../helpers/temporal';
import { stackFramesWorkflow } from '../workflows/stack-frames';

async function framesWith(preloadModules: string[]): Promise<{ limit: number; frames: number; raised: boolean }> {
  installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
  const { address, namespace } = await testServer();
  const code = await buildWorkflowBundle({ workflowsPath: require.resolve('../workflows/stack-frames'), preloadModules });
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const taskQueue = `stack-${randomUUID()}`;
    const worker = await Worker.create({ connection: native, namespace, taskQueue, workflowBundle: { code } });
    const client = new Client({ connection, namespace });
    return await worker.runUntil(client.workflow.execute(stackFramesWorkflow, { taskQueue, workflowId: `stack-${randomUUID()}` }));
  } finally {
    await connection.close();
    await native.close();
  }
}

describe('the stack trace limit in the workflow sandbox', () => {
  it("holds in a worker that preloads Baton's modules, and workflow code cannot lift it", async () => {
    assert.deepEqual(BATON_PRELOADED_MODULES, [...PRELOADED_MODULES, ...STACK_TRACE_LIMIT_MODULES]);
    const capped = await framesWith(BATON_PRELOADED_MODULES);
    assert.deepEqual(capped, { limit: WORKFLOW_STACK_FRAMES, frames: WORKFLOW_STACK_FRAMES, raised: false });
    // What an embedding worker has unless it preloads the module: the SDK's (V8's) ten frames.
    const plain = await framesWith(PRELOADED_MODULES);
    assert.deepEqual(plain, { limit: 10, frames: 10, raised: false });
  });

  it('is preloaded by both prebuilt bundles', () => {
    for (const traced of [false, true]) {
      const path = freshWorkflowBundlePath(traced);
      assert.ok(path, `npm run build writes the ${traced ? 'traced' : 'plain'} bundle`);
      const preload = /exports\.preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(readFileSync(path, 'utf8'));
      assert.ok(preload, `${path} has a preloadModules function`);
      assert.match(preload[1], /workflows\/stack-trace-limit\.js/);
      assert.match(preload[1], /zod-preload\.js/);
    }
  });

  it('leaves the stack trace query of a waiting delegation saying where it waits', async () => {
    const qa = await startAgentServer(supplierQa({ workMs: 10 }));
    try {
      await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
        assert.equal((await baton.until(id, (r) => r.pending !== null, 50)).status, 'WAITING_INPUT');
        const stacks = await ctx.client.workflow.getHandle(id).query<string>('__stack_trace');
        assert.match(stacks, /DelegationRun\.answerInterruption \(.*workflows\/delegation-run\.ts:\d+:\d+\)/);
        await baton.cancel(id, 'test over');
      });
    } finally {
      await qa.close();
    }
  });
});
