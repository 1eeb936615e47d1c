/**
 * The cluster tier: Baton on a real Temporal cluster (the server built from the Go module proxy,
 * PostgreSQL, the services as separate processes, the frontend behind mTLS and the JWT authorizer),
 * with two `baton worker` processes, `baton webhook` and `baton ui` as processes of their own, as
 * production runs them. `npm run test:cluster`; it fails, never skips, when a part cannot be had.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FaultAgent } from '../../infra/fault-agent';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { TRIP_TO_HELSINKI } from '../../src/demo/graph-specs';
import { supplierQa } from '../../src/demo/supplier-qa';
import { arcticTours, harborHotel, skywayAir } from '../../src/demo/trip-agents';
import { startCluster, type RunningCluster } from '../../infra/cluster/cluster';
import { connectTemporalClient } from '../../src/runtime/connect';
import { CliProcess, runCli, userEnv, saysOneLine } from '../../infra/cli-process';
import { kill } from '../helpers/worker-process';

const ASK = [{ text: 'Verify inspection report inspection-92 against order A1042', mediaType: 'text/plain' }];
const PUSH_SECRET = `cluster-push-${process.pid}`;
const API_TOKEN = `cluster-api-${process.pid}`;

describe('Baton on a real Temporal cluster', () => {
  let cluster: RunningCluster;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let agents: RunningAgent[] = [];
  let chaos: FaultAgent;
  const processes: CliProcess[] = [];
  let baton: BatonClient;
  let graphs: GraphClient;
  let close: () => Promise<void>;
  let uiUrl: string;

  const startWorker = async (): Promise<CliProcess> => {
    const worker = new CliProcess(['worker'], env);
    processes.push(worker);
    await worker.waitFor('"msg":"worker started"', 'stderr');
    return worker;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-cluster-tier-'));
    const started = Date.now();
    cluster = await startCluster({ dir: join(dir, 'cluster'), log: (l) => process.stdout.write(`# cluster: ${l}\n`) });
    process.stdout.write(`# cluster: up in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    const qa = await startAgentServer(supplierQa({ workMs: 50 }));
    const air = await startAgentServer({ ...skywayAir({ workMs: 300 }), push: true });
    const hotel = await startAgentServer(harborHotel());
    const tours = await startAgentServer(arcticTours());
    chaos = new FaultAgent('chaos-desk', { dropAfterCreate: 0.15, serverErrors: 0.05, burst: 2, workMs: 2_000, seed: 7 });
    await chaos.start();
    agents = [qa, air, hotel, tours];
    const webhookPort = 20_000 + (process.pid % 10_000);
    const entry = (url: string, extra = '') => `{ card: "${url}", allowHttp: true, allowPrivateNetwork: true${extra} }`;
    const config = join(dir, 'baton.config.yaml');
    writeFileSync(
      config,
      [
        'agents:',
        `  supplier-qa: ${entry(qa.url)}`,
        `  skyway-air: ${entry(air.url, ', observe: push')}`,
        `  harbor-hotel: ${entry(hotel.url)}`,
        `  arctic-tours: ${entry(tours.url)}`,
        `  chaos-desk: ${entry(chaos.url)}`,
        `push: { url: "http://127.0.0.1:${webhookPort}", listen: { host: 127.0.0.1, port: ${webhookPort} }, backstopPoll: 5s }`,
        `artifacts: { path: "${join(dir, 'artifacts')}" }`,
        'caller: { tenant: acme, user: ops-1 }',
        `api: { listen: { host: 127.0.0.1, port: 0 }, callers: [{ tenant: acme, user: ops-1, tokenFromEnv: CLUSTER_API_TOKEN }] }`,
      ].join('\n'),
    );
    env = userEnv({
      ...(await cluster.env(['default:write', 'default:worker'])),
      BATON_CONFIG: config,
      BATON_PUSH_SECRET: PUSH_SECRET,
      CLUSTER_API_TOKEN: API_TOKEN,
    });

    await startWorker();
    await startWorker();
    const webhook = new CliProcess(['webhook'], env);
    processes.push(webhook);
    await webhook.waitFor('"msg":"webhook started"', 'stderr');
    const ui = new CliProcess(['ui', '--port', '0'], env);
    processes.push(ui);
    await ui.waitFor('Baton web app and API at ');
    uiUrl = /Baton web app and API at (\S+)/.exec(ui.stdout)?.[1] ?? '';

    // This process connects as every Baton process does: from the environment (mTLS and a token).
    for (const [k, v] of Object.entries(await cluster.env(['default:write', 'default:worker']))) process.env[k] = v;
    const connection = await connectTemporalClient({});
    const caller = { tenant: 'acme', user: 'ops-1' };
    baton = new BatonClient(connection, { namespace: 'default', taskQueue: 'baton', caller });
    graphs = new GraphClient(connection, { namespace: 'default', taskQueue: 'baton', caller });
    close = () => connection.close();
  });

  after(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.exited));
    await close?.();
    for (const a of agents) await a.close();
    await chaos?.close();
    await cluster?.stop();
  });

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
});
