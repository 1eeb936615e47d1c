/**
 * Baton on a real Temporal cluster, as production runs it: the cluster (the server built from the Go
 * module proxy, PostgreSQL, the services as separate processes, mTLS and the JWT authorizer), the demo
 * and fault agents, two `baton worker` processes, `baton webhook` and `baton ui` (with a served
 * gateway). Used by the cluster tier and by `npm run chaos -- --cluster`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultAgent } from '../../infra/fault-agent';
import { startCluster, type RunningCluster } from '../../infra/cluster/cluster';
import { CliProcess, userEnv } from '../../infra/cli-process';
import { BatonClient } from '../../src/client/baton-client';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { arcticTours, harborHotel, skywayAir } from '../../src/demo/trip-agents';
import { connectTemporalClient } from '../../src/runtime/connect';

export const PUSH_SECRET = `cluster-push-${process.pid}`;
export const API_TOKEN = `cluster-api-token-${process.pid}`;
/** The Nexus endpoint Baton serves behind, and the namespace its callers' workflows run in. */
export const NEXUS_ENDPOINT = 'baton';
export const NEXUS_CALLERS = 'callers';

export interface ClusterStack {
  cluster: RunningCluster;
  /** The environment Baton's processes run with (config, certificates, token). */
  env: NodeJS.ProcessEnv;
  baton: BatonClient;
  graphs: GraphClient;
  /** The fault agent (drops after task creation, 5xx bursts), which counts duplicate tasks. */
  chaos: FaultAgent;
  /** The web app and API of `baton ui`. */
  uiUrl: string;
  /** The `baton worker`, `baton webhook` and `baton ui` processes, in start order. */
  processes: CliProcess[];
  /** Starts one more `baton worker` and waits until it polls. */
  startWorker(): Promise<CliProcess>;
  stop(): Promise<void>;
}

/** Sets `env` in this process's environment; the function it returns gives back what was there. */
export function setEnvironment(env: Record<string, string>): () => void {
  const previous = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** Starts it all; `log` hears the cluster's progress. */
export async function startClusterStack(log: (line: string) => void): Promise<ClusterStack> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-cluster-tier-'));
  const started = Date.now();
  // `callers`: the namespace of the Nexus test's caller workflows (another team's, mapped to tenant acme).
  const cluster = await startCluster({ dir: join(dir, 'cluster'), log, namespaces: ['default', NEXUS_CALLERS] });
  log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const agents: RunningAgent[] = [];
  const faults: FaultAgent[] = [];
  const processes: CliProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.exited));
    for (const a of agents) await a.close();
    for (const f of faults) await f.close();
    await cluster.stop();
  };
  try {
    agents.push(
      await startAgentServer(supplierQa({ workMs: 50 })),
      await startAgentServer({ ...skywayAir({ workMs: 300 }), push: true }),
      await startAgentServer(harborHotel()),
      await startAgentServer(arcticTours()),
    );
    const [qa, air, hotel, tours] = agents as [RunningAgent, RunningAgent, RunningAgent, RunningAgent];
    const chaos = await new FaultAgent('chaos-desk', {
      dropAfterCreate: 0.15,
      serverErrors: 0.05,
      burst: 2,
      workMs: 2_000,
      seed: 7,
    }).start();
    // Works long enough that what follows it is still open while a service restarts.
    const slow = await new FaultAgent('slow-desk', { workMs: 8_000, seed: 9 }).start();
    faults.push(chaos, slow);
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
        `  slow-desk: ${entry(slow.url)}`,
        `push: { url: "http://127.0.0.1:${webhookPort}", listen: { host: 127.0.0.1, port: ${webhookPort} }, backstopPoll: 5s }`,
        `artifacts: { path: "${join(dir, 'artifacts')}" }`,
        'caller: { tenant: acme, user: ops-1 }',
        `api: { listen: { host: 127.0.0.1, port: 0 }, callers: [{ tenant: acme, user: ops-1, tokenFromEnv: CLUSTER_API_TOKEN }] }`,
        `nexus: { endpoint: ${NEXUS_ENDPOINT}, callers: [{ namespace: ${NEXUS_CALLERS}, tenant: acme, user: orders-app }] }`,
        'serve:',
        '  services:',
        "    slow-gateway: { description: 'The slow desk behind Baton', skills: [{ id: work, name: Work, description: Works slowly }], delegate: { agent: slow-desk } }",
      ].join('\n'),
    );
    const env = userEnv({
      ...(await cluster.env(['default:write', 'default:worker'])),
      BATON_CONFIG: config,
      BATON_PUSH_SECRET: PUSH_SECRET,
      CLUSTER_API_TOKEN: API_TOKEN,
    });
    const startWorker = async (): Promise<CliProcess> => {
      const worker = new CliProcess(['worker'], env);
      processes.push(worker);
      await worker.waitFor('"msg":"worker started"', 'stderr');
      return worker;
    };
    await startWorker();
    await startWorker();
    const webhook = new CliProcess(['webhook'], env);
    processes.push(webhook);
    await webhook.waitFor('"msg":"webhook started"', 'stderr');
    const ui = new CliProcess(['ui', '--port', '0'], env);
    processes.push(ui);
    await ui.waitFor('Baton web app and API at ');
    const uiUrl = /Baton web app and API at (\S+)/.exec(ui.stdout)?.[1] ?? '';

    // This process connects as every Baton process does: from the environment (mTLS and a token),
    // which is given back as it was when the stack stops (a dev server may be next).
    const connectionEnv = await cluster.env(['default:write', 'default:worker']);
    const restoreEnv = setEnvironment(connectionEnv);
    const connection = await connectTemporalClient({});
    const caller = { tenant: 'acme', user: 'ops-1' };
    return {
      cluster,
      env,
      baton: new BatonClient(connection, { namespace: 'default', taskQueue: 'baton', caller }),
      graphs: new GraphClient(connection, { namespace: 'default', taskQueue: 'baton', caller }),
      chaos,
      uiUrl,
      processes,
      startWorker,
      stop: async () => {
        await connection.close();
        await stop();
        restoreEnv();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
