/**
 * The small runner every measurement of `npm run bench` shares: the server (the dev server, or a real
 * cluster reached as production reaches it), the loopback agents, a worker in this process, worker
 * processes as shipped, clients, and the helpers that time and report.
 */
import { serverCost, type ServerCost } from './server-cost';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import { BatonClient } from '../src/client/baton-client';
import { loopbackAgentEntry, PushSchema, type AgentEntry } from '../src/config/schema';
import { startAgentServer, type DemoAgentDefinition, type RunningAgent } from '../src/demo/agent-server';
import { supplierQa } from '../src/demo/supplier-qa';
import { bookingDesk } from '../src/demo/trip-agents';
import { withBaton } from '../src/embed/with-baton';
import { startWebhook } from '../src/push/webhook';
import { connectTemporalClient, connectTemporalWorker } from '../src/runtime/connect';
import { startTemporal } from '../src/runtime/temporal-server';
import { startCluster } from '../infra/cluster/cluster';
import { CliProcess, userEnv } from '../infra/cli-process';
import { pushSignal } from '../workflows/messages';
import * as benchActivities from './activities';
import { bareCallWorkflow } from './workflows';

export const say = (line: string): void => void process.stderr.write(`${line}\n`);
export const ms = (n: number): string => `${n.toFixed(0)} ms`;
export const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
export const mark = (ok: boolean): string => (ok ? '✅' : '❌');

/** A report being written: Markdown lines, and table rows. */
export class Report {
  readonly lines: string[] = [];
  push(...lines: string[]): void {
    this.lines.push(...lines);
  }
  row(cells: (string | number)[]): void {
    this.lines.push(`| ${cells.join(' | ')} |`);
  }
}

/** How much each measurement of the main run does: `--quick` for trying it out. */
export interface BenchSize {
  latency: number;
  levels: number[];
  total: number;
  parked: number;
  pollMinutes: number;
  modeRuns: number;
  burst: number;
}

export function sizeOf(quick: boolean): BenchSize {
  return quick
    ? { latency: 20, levels: [1, 10, 50], total: 50, parked: 300, pollMinutes: 1, modeRuns: 2, burst: 100 }
    : { latency: 200, levels: [1, 10, 100], total: 300, parked: 10_000, pollMinutes: 10, modeRuns: 5, burst: 1_000 };
}

/** Runs `fn(0 … count-1)`, at most `concurrency` at once; the results in order. */
export async function inParallel<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** Seconds to run `fn` `total` times, `concurrency` at once. */
export async function secondsFor(fn: () => Promise<void>, concurrency: number, total: number): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await fn();
      }
    }),
  );
  return (performance.now() - t) / 1000;
}

/** A loopback agent whose calls are counted. */
export interface Counted {
  agent: RunningAgent;
  calls: () => number;
}

export async function counted(def: DemoAgentDefinition): Promise<Counted> {
  let n = 0;
  const agent = await startAgentServer(def, { holdResponse: () => ((n += 1), 0) });
  return { agent, calls: () => n };
}

export interface BenchServer {
  address: string;
  namespace: string;
  /** What the server spends (its CPU, its persistence writes). */
  cost: ServerCost;
  stop(): Promise<void>;
}

/** The dev server, or a cluster of our own, connected to through the environment as `baton` processes are. */
export async function startBenchServer(onCluster: boolean): Promise<BenchServer> {
  if (!onCluster) {
    const dev = await startTemporal({ own: true, uiPort: false, metricsPort: 0 });
    return { ...dev, cost: serverCost(() => (dev.pid ? [dev.pid] : []), dev.metricsUrl ? [dev.metricsUrl] : []) };
  }
  const cluster = await startCluster({
    dir: mkdtempSync(join(tmpdir(), 'bench-cluster-')),
    log: (l) => say(`cluster: ${l}`),
    namespaces: ['default', BENCH_CALLERS],
  });
  // A token for the whole run (the full one takes hours).
  // The Nexus bench's callers run in a namespace of their own, and it makes the endpoint (a cluster admin's right).
  Object.assign(
    process.env,
    await cluster.env(
      ['default:admin', 'default:write', 'default:worker', `${BENCH_CALLERS}:write`, `${BENCH_CALLERS}:worker`, 'temporal-system:admin'],
      { expiresInSeconds: 24 * 3600 },
    ),
  );
  return {
    address: cluster.address,
    namespace: 'default',
    cost: serverCost(() => cluster.pids(), cluster.metricsUrls),
    stop: () => cluster.stop(),
  };
}

/** A worker process that can be stopped. */
export interface WorkerProcess {
  pid: number;
  stop(): Promise<void>;
}

/** The agents of the main run: one that completes at once, three that work 3 s (one per observation), supplier-qa, one that never ends. */
export interface BenchAgents {
  instant: Counted;
  working: { stream: Counted; poll: Counted; push: Counted };
  qa: Counted;
  slow: Counted;
  entries: Record<string, AgentEntry>;
}

async function startAgents(): Promise<BenchAgents> {
  const instant = await counted({ ...bookingDesk('instant', 'Completes at once', { workMs: 0 }), streaming: true });
  const working = {
    stream: await counted({ ...bookingDesk('works-stream', 'Works 3 s', { workMs: 3_000 }), streaming: true }),
    poll: await counted(bookingDesk('works-poll', 'Works 3 s', { workMs: 3_000 })),
    push: await counted({ ...bookingDesk('works-push', 'Works 3 s', { workMs: 3_000 }), push: true }),
  };
  const qa = await counted(supplierQa({ workMs: 50 }));
  const slow = await counted(bookingDesk('slow', 'Works for a long time', { workMs: 4 * 60 * 60_000 }));
  const entries = {
    instant: loopbackAgentEntry(instant.agent.url, { acceptance: 'accept-any' }),
    'works-stream': loopbackAgentEntry(working.stream.agent.url, { acceptance: 'accept-any' }),
    'works-poll': loopbackAgentEntry(working.poll.agent.url, { acceptance: 'accept-any', observe: 'poll' }),
    'works-push': loopbackAgentEntry(working.push.agent.url, { acceptance: 'accept-any', observe: 'push' }),
    'supplier-qa': loopbackAgentEntry(qa.agent.url),
    slow: loopbackAgentEntry(slow.agent.url, { observe: 'poll' }),
  };
  return { instant, working, qa, slow, entries };
}

/** Everything the main run's measurements share. */
export interface BenchRun {
  size: BenchSize;
  onCluster: boolean;
  server: BenchServer;
  connection: Connection;
  client: Client;
  /** The worker connection, for workers a measurement starts in this process. */
  native: NativeConnection;
  /** Baton's and the bare workflow's worker in this process, on `taskQueue`. */
  taskQueue: string;
  baton: BatonClient;
  agents: BenchAgents;
  quiet: Logger;
  /** A Baton client on another task queue. */
  batonOn(queue: string, extra?: Partial<ConstructorParameters<typeof BatonClient>[1]>): BatonClient;
  /** `count` `baton worker` processes as shipped, on `queue`, with the instant agent; started. */
  batonWorkers(queue: string, count: number): Promise<CliProcess[]>;
  /** One `baton worker` process on `queue`, started. */
  batonWorker(queue: string): Promise<WorkerProcess>;
  /** A bare-workflow worker process on `queue` (bench/bare-worker.ts), started. */
  bareWorker(queue: string): Promise<WorkerProcess>;
  /** One bare workflow on `queue` (one activity making the agent's SendMessage), to its end. */
  bareCall(queue: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the main run's agents, webhook and in-process worker on `server`. */
export async function startBenchRun(size: BenchSize, onCluster: boolean, server: BenchServer, connection: Connection): Promise<BenchRun> {
  const quiet = pino({ level: 'error' }, pino.destination(2));
  const client = new Client({ connection, namespace: server.namespace });
  const secret = randomUUID();
  process.env.BATON_BENCH_PUSH_SECRET = secret;
  const webhook = await startWebhook({
    secret,
    logger: quiet,
    deliver: (d, t) => client.workflow.getHandle(d).signal(pushSignal, { taskId: t }),
  });
  const agents = await startAgents();
  const push = PushSchema.parse({ url: webhook.url, secretFromEnv: 'BATON_BENCH_PUSH_SECRET', backstopPoll: '5m' });
  const taskQueue = 'bench';
  const native = await connectTemporalWorker(benchTarget(onCluster, server));
  const worker = await Worker.create({
    ...(await withBaton(
      {
        connection: native,
        namespace: server.namespace,
        taskQueue,
        workflowsPath: require.resolve('./workflows'),
        activities: benchActivities,
      },
      { config: { agents: agents.entries, push, artifacts: { path: mkdtempSync(join(tmpdir(), 'bench-artifacts-')) } }, logger: quiet },
    )),
    maxCachedWorkflows: 2_000,
  });
  const running = worker.run();
  const caller = { tenant: 'bench', user: 'bench' };
  const batonOn = (queue: string, extra = {}) =>
    new BatonClient(connection, { namespace: server.namespace, taskQueue: queue, caller, ...extra });
  const dir = mkdtempSync(join(tmpdir(), 'bench-workers-'));
  const batonWorkers = async (queue: string, count: number): Promise<CliProcess[]> => {
    const cfg = join(dir, `${queue}.yaml`);
    writeFileSync(
      cfg,
      [
        `temporal: { address: "${server.address}", taskQueue: "${queue}" }`,
        'agents:',
        `  instant: { card: "${agents.instant.agent.url}", allowHttp: true, allowPrivateNetwork: true, acceptance: accept-any }`,
        `artifacts: { path: "${dir}/artifacts" }`,
      ].join('\n'),
    );
    const procs = Array.from(
      { length: count },
      () => new CliProcess(['worker'], userEnv({ BATON_CONFIG: cfg, BATON_LOG_LEVEL: 'info', BATON_LOG_FORMAT: 'json' })),
    );
    await Promise.all(procs.map((w) => w.waitFor('worker started', 'stderr')));
    return procs;
  };
  return {
    size,
    onCluster,
    server,
    connection,
    client,
    native,
    taskQueue,
    baton: batonOn(taskQueue),
    agents,
    quiet,
    batonOn,
    batonWorkers,
    batonWorker: async (queue) => {
      const [w] = (await batonWorkers(queue, 1)) as [CliProcess];
      return { pid: w.child.pid ?? 0, stop: async () => void (w.child.kill('SIGTERM'), await w.exited) };
    },
    bareWorker: (queue) => startBareWorker(onCluster ? '' : server.address, server.namespace, queue),
    bareCall: async (queue) =>
      void (await client.workflow.execute(bareCallWorkflow, {
        taskQueue: queue,
        workflowId: `bare-${randomUUID()}`,
        args: [{ baseUrl: agents.instant.agent.url, text: 'book it', messageId: randomUUID() }],
      })),
    close: async () => {
      worker.shutdown();
      await running.catch(() => {});
      await native.close();
      await webhook.close();
      const { instant, working, qa, slow } = agents;
      for (const c of [instant, working.stream, working.poll, working.push, qa, slow]) await c.agent.close();
    },
  };
}

async function startBareWorker(address: string, namespace: string, queue: string): Promise<WorkerProcess> {
  const w = spawn(process.execPath, [require.resolve('./bare-worker'), address, namespace, queue], {
    env: process.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    w.stderr?.on('data', (c: Buffer) => ((err += c.toString()), err.includes('bare worker started') && resolve()));
    w.once('exit', (code) => reject(new Error(`bare worker exited with ${code}: ${err}`)));
  });
  const exited = new Promise((r) => w.once('exit', r));
  return { pid: w.pid ?? 0, stop: async () => void (w.kill('SIGTERM'), await exited) };
}

/** Where clients and workers reach the bench server: the dev server's address, or the cluster through the environment. */
/** The namespace of the Nexus bench's caller workflows (the cluster bench creates it with the cluster). */
export const BENCH_CALLERS = 'bench-callers';

export function benchTarget(onCluster: boolean, server: Pick<BenchServer, 'address'>): string | Record<string, never> {
  return onCluster ? {} : server.address;
}

/** A client connection to the bench server. */
export function connectBench(onCluster: boolean, server: BenchServer): Promise<Connection> {
  return connectTemporalClient(benchTarget(onCluster, server));
}
