/**
 * The cluster tier: Baton on a real Temporal cluster (the server built from the Go module proxy,
 * PostgreSQL, the services as separate processes, the frontend behind mTLS and the JWT authorizer),
 * with two `baton worker` processes, `baton webhook` and `baton ui` as processes of their own, as
 * production runs them. `npm run test:cluster`; it fails, never skips, when a part cannot be had.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FaultAgent } from '../../infra/fault-agent';
import type { BatonClient } from '../../src/client/baton-client';
import type { GraphClient } from '../../src/client/graph-client';
import { TRIP_TO_HELSINKI } from '../../src/demo/graph-specs';
import type { RunningCluster } from '../../infra/cluster/cluster';
import { runCli, saysOneLine, type CliProcess } from '../../infra/cli-process';
import { kill } from '../helpers/worker-process';
import { API_TOKEN, NEXUS_CALLERS, NEXUS_ENDPOINT, setEnvironment, startClusterStack, type ClusterStack } from './cluster-stack';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { connectTemporalClient, connectTemporalWorker } from '../../src/runtime/connect';
import { buildWorkflowBundle } from '../../src/runtime/bundle-workflows';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { restartTable, restartUnderLoad, type RestartReport } from './restarts';

const FULL_ASK = 'Verify inspection report inspection-92 against order A1042 for SN-4471';
const ASK = [{ text: 'Verify inspection report inspection-92 against order A1042', mediaType: 'text/plain' }];

describe('Baton on a real Temporal cluster', () => {
  let stack: ClusterStack;
  let cluster: RunningCluster;
  let env: NodeJS.ProcessEnv;
  let chaos: FaultAgent;
  let processes: CliProcess[];
  let baton: BatonClient;
  let graphs: GraphClient;
  let uiUrl: string;
  let startWorker: () => Promise<CliProcess>;

  before(async () => {
    stack = await startClusterStack((l) => process.stdout.write(`# cluster: ${l}\n`));
    ({ cluster, env, chaos, processes, baton, graphs, uiUrl, startWorker } = stack);
  });

  after(() => stack?.stop());

  it('runs supplier-qa with an input round, and baton ui lists it', async () => {
    const id = await baton.start({ agent: 'supplier-qa', parts: ASK });
    const waiting = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 100);
    assert.equal(waiting.status, 'WAITING_INPUT');
    await baton.answer(id, `${id}/request-1`, [{ text: 'SN-4471' }]);
    assert.equal((await baton.result(id)).outcome?.kind, 'ACCEPTED');
    const listed = (await (
      await fetch(`${uiUrl}/api/v1/delegations/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
    ).json()) as {
      outcome?: { kind: string };
    };
    assert.equal(listed.outcome?.kind, 'ACCEPTED', 'baton ui reads it from the cluster');
  });

  it('runs a task graph', async () => {
    const id = await graphs.start(TRIP_TO_HELSINKI);
    const record = await graphs.until(id, (g) => g.status === 'SETTLED', 200);
    assert.equal(record.outcome?.kind, 'ACCEPTED', JSON.stringify(record.outcome));
    assert.deepEqual(record.nodes.map((n) => n.outcome).sort(), ['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'ACCEPTED']);
  });

  it('follows a task by push through the webhook process', async () => {
    const id = await baton.start({ agent: 'skyway-air', parts: [{ text: 'Book a flight from Berlin to Helsinki' }] });
    const record = await baton.result(id);
    assert.equal(record.outcome?.kind, 'ACCEPTED');
    assert.equal(record.agent.observe, 'push');
  });

  /**
   * `n` delegations to the fault agent (dropped connections after task creation, 5xx bursts) while
   * `during` breaks something; counts what was lost, ended wrong or created twice at the agent.
   */
  const chaosRun = async (n: number, label: string, during: () => Promise<void>) => {
    const before = chaos.duplicateTasks;
    const ids = await Promise.all(
      Array.from({ length: n }, (_, i) => baton.start({ agent: 'chaos-desk', parts: [{ text: `${label} ${i}` }] })),
    );
    await Promise.all(ids.map((id) => baton.until(id, (r) => r.status === 'REMOTE_ACTIVE' || r.outcome !== undefined, 100)));
    await during();
    // A lost delegation would never settle: the test's timeout reports it.
    const records = await Promise.all(ids.map((id) => baton.result(id)));
    const counts = {
      lost: records.filter((r) => !r.outcome).length,
      wrong: records.filter((r) => r.outcome?.kind !== 'ACCEPTED').length,
      duplicates: chaos.duplicateTasks - before,
    };
    process.stdout.write(`# ${label}: ${n} delegations, ${JSON.stringify(counts)}\n`);
    return counts;
  };

  it('loses nothing and duplicates nothing when a worker is SIGKILLed mid-observation', async () => {
    const counts = await chaosRun(6, 'worker SIGKILL', async () => {
      const [first] = processes;
      assert.ok(first);
      await kill(first);
    });
    assert.deepEqual(counts, { lost: 0, wrong: 0, duplicates: 0 });
    await startWorker();
  });

  it('loses nothing when the history service and PostgreSQL restart mid-run', async () => {
    const counts = await chaosRun(4, 'history and PostgreSQL restarts', async () => {
      await cluster.restart('history');
      await cluster.restartPostgres();
    });
    assert.deepEqual(counts, { lost: 0, wrong: 0, duplicates: 0 });
  });

  it(
    'restarts every service, then the whole cluster, under load: nothing lost, every stream to its end',
    { timeout: 900_000 },
    async () => {
      const deps = { baton, graphs, chaos, env, uiUrl, token: API_TOKEN };
      const restarts: [string, () => Promise<void>][] = [
        ['frontend', () => cluster.restart('frontend')],
        ['matching', () => cluster.restart('matching')],
        ['history', () => cluster.restart('history')],
        ['worker service', () => cluster.restart('worker')],
        ['PostgreSQL', () => cluster.restartPostgres()],
        ['the whole cluster', () => cluster.restartAll()],
      ];
      const reports: RestartReport[] = [];
      for (const [target, restart] of restarts) reports.push(await restartUnderLoad(deps, target, restart));
      for (const line of restartTable(reports)) console.log(line);
      for (const r of reports)
        assert.deepEqual({ duplicates: r.duplicates, wrong: r.wrongOutcomes }, { duplicates: 0, wrong: 0 }, r.target);
    },
  );

  it('refuses a wrong, expired or missing token and a client without a certificate, each in one line', async () => {
    const stranger = await cluster.tokens.token(['default:write'], { signedBy: 'stranger' });
    const expired = await cluster.tokens.token(['default:write'], { expiresInSeconds: -60 });
    saysOneLine(
      await runCli(['ls'], { ...env, TEMPORAL_API_KEY: stranger }),
      1,
      /^baton: Temporal at .* refused the connection \(the API key from TEMPORAL_API_KEY\)/,
    );
    saysOneLine(
      await runCli(['ls'], { ...env, TEMPORAL_API_KEY: expired }),
      1,
      /^baton: Temporal at .* refused the connection \(the API key from TEMPORAL_API_KEY\)/,
    );
    saysOneLine(await runCli(['ls'], { ...env, TEMPORAL_API_KEY: '' }), 1, /^baton: Temporal refused the request \(Request unauthorized\)/);
    saysOneLine(
      await runCli(['ls'], { ...env, TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_TLS_CLIENT_KEY_PATH: '' }),
      1,
      /^baton: cannot reach Temporal at .* with no client certificate/,
    );
  });

  it('lets a read-only token show a delegation but not start one', async () => {
    const id = await baton.start({ agent: 'supplier-qa', parts: ASK });
    await baton.until(id, (r) => r.pending !== null, 100);
    const reader = { ...env, TEMPORAL_API_KEY: await cluster.tokens.token(['default:read']) };
    const shown = await runCli(['show', id, '--json'], reader);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { status: string }).status, 'WAITING_INPUT');
    saysOneLine(
      await runCli(['delegate', '--agent', 'supplier-qa', '--text', 'hi'], reader),
      1,
      /^baton: Temporal refused the request \(Request unauthorized\)/,
    );
    await baton.cancel(id, 'done with the test');
  });

  it('runs one delegation through Nexus across two namespaces, the JWT authorizer on', async () => {
    // Creating an endpoint is a cluster operator's right; the worker's token cannot.
    const admin = { ...env, TEMPORAL_API_KEY: await cluster.tokens.token(['temporal-system:admin']) };
    const setup = await runCli(['setup', '--nexus'], admin);
    assert.equal(setup.code, 0, setup.stderr);
    assert.match(setup.stdout, new RegExp(`nexus endpoint ${NEXUS_ENDPOINT}: created, targeting namespace default, task queue baton`));
    // The caller team's worker and client, with a token for its own namespace only.
    const callerEnv = await cluster.env([`${NEXUS_CALLERS}:write`, `${NEXUS_CALLERS}:worker`]);
    const restore = setEnvironment(callerEnv);
    const native = await connectTemporalWorker({ namespace: NEXUS_CALLERS });
    const connection = await connectTemporalClient({ namespace: NEXUS_CALLERS });
    restore();
    const taskQueue = 'nexus-callers';
    const code = await buildWorkflowBundle({ workflowsPath: require.resolve('../workflows/nexus-callers') });
    const worker = await Worker.create({ connection: native, namespace: NEXUS_CALLERS, taskQueue, workflowBundle: { code } });
    try {
      const record = await worker.runUntil(
        new Client({ connection, namespace: NEXUS_CALLERS }).workflow.execute('delegateAndWait', {
          taskQueue,
          workflowId: `cluster-nexus-${Date.now()}`,
          args: [NEXUS_ENDPOINT, { agent: 'supplier-qa', text: FULL_ASK, idempotencyKey: `cluster-nexus-${process.pid}` }],
          workflowExecutionTimeout: '3m',
        }),
      );
      const settled = record as DelegationRecord;
      assert.equal(settled.outcome?.kind, 'ACCEPTED', JSON.stringify(settled.outcome));
      assert.equal(settled.id, `acme:cluster-nexus-${process.pid}`);
      assert.equal(settled.owner, 'orders-app');
      // Baton's own client (tenant acme) sees the same delegation in its namespace.
      assert.equal((await baton.show(settled.id)).outcome?.kind, 'ACCEPTED');
    } finally {
      await connection.close();
      await native.close();
    }
  });
});
