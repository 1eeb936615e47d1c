/**
 * An upgrade with Worker Versioning on a real server: delegations started on build N wait for input
 * while build N+1, with a real change to the workflow, is deployed and made current. The old ones
 * stay pinned to N and complete correctly there; a new one runs on N+1. The change is one N's
 * histories cannot replay on, so the test also shows what pinning saved them from.
 */
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import pino from 'pino';
import { BatonClient } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { PRELOADED_MODULES } from '../../src/runtime/bundle-workflows';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { createBatonWorker } from '../../src/runtime/worker';
import { BATON_VERSION } from '../../src/shared/baton-version';
import { SA_BATON_VERSION, startingAttributes } from '../../src/shared/search-attributes';
import { batonFor, loopbackAgent, testBundle, testServer, withWorker } from '../helpers/temporal';

const ASK = [{ text: 'Verify inspection report inspection-92 against order A1042', mediaType: 'text/plain' }];
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('an upgrade from build N to N+1 with Worker Versioning', () => {
  let agent: RunningAgent;
  let connection: Connection;
  let native: NativeConnection;
  let namespace: string;
  before(async () => {
    installTemporalRuntime(pino({ level: 'warn' }, pino.destination(2)));
    agent = await startAgentServer(supplierQa({ workMs: 20 }));
    const server = await testServer();
    namespace = server.namespace;
    connection = await Connection.connect({ address: server.address });
    native = await NativeConnection.connect({ address: server.address });
  });
  after(async () => {
    await agent.close();
    await connection.close();
    await native.close();
  });

  it('keeps in-flight delegations on N until they end, and starts new ones on N+1', async () => {
    const deployment = `baton-upgrade-${randomUUID().slice(0, 8)}`;
    const taskQueue = `test-${randomUUID()}`;
    const logger = pino({ level: 'warn' });
    const workerOf = async (buildId: string, workflowBundle: { code: string }): Promise<Worker> =>
      createBatonWorker({
        connection: native,
        namespace,
        taskQueue,
        config: {
          agents: { 'supplier-qa': loopbackAgent(agent.url) },
          worker: { maxCachedWorkflows: 100, maxConcurrentActivities: 100, deployment: { name: deployment, buildId, behavior: 'pinned' } },
        },
        logger,
        workflowBundle,
        activityOverrides: { poll: { initialMs: 50, maxMs: 500 } },
      });
    const client = new Client({ connection, namespace });
    // A tenant of its own: the list below sees only this test's delegations.
    const caller = { tenant: `upgrade-${randomUUID().slice(0, 8)}`, user: 'ops-1' };
    const baton = new BatonClient(connection, { namespace, taskQueue, caller });
    /** Makes `buildId` the deployment's current version, once its worker has been seen polling. */
    const makeCurrent = async (buildId: string): Promise<void> => {
      for (let attempt = 0; ; attempt++) {
        try {
          await connection.workflowService.setWorkerDeploymentCurrentVersion({
            namespace,
            deploymentName: deployment,
            buildId,
            identity: 'upgrade-test',
          });
          break;
        } catch (err) {
          // NOT_FOUND (5) or FAILED_PRECONDITION (9) until the server has seen the new build's poller.
          if (attempt > 200 || ![5, 9].includes((err as { code?: number }).code ?? 0)) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      // The server takes the new routing to the task queues after it answers: a start right away can
      // still go to the old build (seen once under load). Wait until it says the routing is everywhere.
      for (let attempt = 0; ; attempt++) {
        const { workerDeploymentInfo: info } = await connection.workflowService.describeWorkerDeployment({
          namespace,
          deploymentName: deployment,
        });
        const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
        const state = info?.routingConfigUpdateState;
        if (current === buildId && state !== temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS) return;
        if (attempt > 200) assert.fail(`the deployment's routing did not reach build ${buildId} (current ${current}, state ${state})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const buildOf = async (id: string): Promise<string | undefined> => {
      const info = (await client.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.versioningInfo;
      return info?.deploymentVersion?.buildId ?? undefined;
    };
    const waitingForInput = (id: string) => baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);

    const n = await workerOf('n', await testBundle());
    const nextBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows/next-version'),
      preloadModules: PRELOADED_MODULES,
      logger: silent,
    });
    const running: Promise<void>[] = [n.run()];
    let next: Worker | undefined;
    try {
      await makeCurrent('n');
      const old = [await baton.start({ agent: 'supplier-qa', parts: ASK }), await baton.start({ agent: 'supplier-qa', parts: ASK })];
      for (const id of old) assert.equal((await waitingForInput(id)).status, 'WAITING_INPUT');

      next = await workerOf('n1', nextBundle);
      running.push(next.run());
      await makeCurrent('n1');
      const fresh = await baton.start({ agent: 'supplier-qa', parts: ASK });
      assert.equal((await waitingForInput(fresh)).status, 'WAITING_INPUT');

      for (const id of [...old, fresh]) await baton.answer(id, `${id}/request-1`, [{ text: 'SN-4471' }]);
      for (const id of [...old, fresh]) assert.equal((await baton.result(id)).outcome?.kind, 'ACCEPTED', `${id} accepted`);

      for (const id of old) {
        assert.equal(await buildOf(id), 'n', `${id} stayed on build n`);
        assert.equal((await client.workflow.getHandle(id).describe()).memo?.startedOnBuild, undefined, `${id} never ran N+1's code`);
      }
      assert.equal(await buildOf(fresh), 'n1');
      assert.equal((await client.workflow.getHandle(fresh).describe()).memo?.startedOnBuild, 'next');

      // Versions visible: the Baton version that started each, and the build it runs on.
      let rows = await baton.list({ batonVersion: BATON_VERSION, limit: 10 });
      for (let i = 0; i < 100 && rows.filter((r) => r.deploymentVersion).length < 3; i++)
        rows = await baton.list({ batonVersion: BATON_VERSION, limit: 10 });
      const listed = new Map(rows.map((r) => [r.id, r]));
      for (const id of old) assert.equal(listed.get(id)?.deploymentVersion, `${deployment}:n`);
      assert.equal(listed.get(fresh)?.deploymentVersion, `${deployment}:n1`);
      for (const id of [...old, fresh]) assert.equal(listed.get(id)?.batonVersion, BATON_VERSION);
      assert.equal((await baton.show(old[0] as string)).batonVersion, BATON_VERSION);

      // What pinning saved them from: N's history does not replay on N+1's code.
      const history = await client.workflow.getHandle(old[0] as string).fetchHistory();
      const [replayed] = await collect(Worker.runReplayHistories({ workflowBundle: nextBundle }, [{ workflowId: 'old', history }]));
      assert.match(String(replayed?.error?.message), /nondetermin/i);
    } finally {
      n.shutdown();
      next?.shutdown();
      await Promise.all(running);
    }
  });
});

describe('delegations an older Baton started', () => {
  it('are listed with --baton-version none and shown as started before 0.2', async () => {
    const agent = await startAgentServer(supplierQa({ workMs: 20 }));
    try {
      await withWorker({ 'supplier-qa': loopbackAgent(agent.url) }, async (ctx) => {
        // A tenant of its own: the list sees only this test's delegations.
        const tenant = `old-${randomUUID().slice(0, 8)}`;
        const baton = batonFor(ctx, tenant);
        const current = await baton.start({ agent: 'supplier-qa', parts: ASK });
        // Started as 0.1 did: the same input, without BatonVersion among the starting attributes.
        const old = `dlg-old-${randomUUID()}`;
        const input = { agent: 'supplier-qa', parts: ASK, tenant, owner: 'ops-1' };
        await ctx.client.workflow.start('delegationWorkflow', {
          workflowId: old,
          taskQueue: ctx.taskQueue,
          args: [input],
          typedSearchAttributes: startingAttributes(input).filter((p) => p.key.name !== SA_BATON_VERSION.name),
        });
        for (const id of [current, old]) await baton.until(id, (r) => r.pending !== null, 50);
        const ids = async (batonVersion: string) => (await baton.list({ batonVersion, status: 'WAITING_INPUT' })).map((r) => r.id);
        // The visibility index is eventually consistent: ask again until it has caught up (bounded).
        let listed: string[][] = [];
        for (let i = 0; i < 100 && !(listed[0]?.length && listed[1]?.length); i++) listed = [await ids('none'), await ids(BATON_VERSION)];
        assert.deepEqual(listed, [[old], [current]]);
        assert.equal((await baton.show(old)).batonVersion, undefined);
        assert.equal((await baton.show(current)).batonVersion, BATON_VERSION);
      });
    } finally {
      await agent.close();
    }
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
