/**
 * One task graph of 10,000 nodes, 1,000 running at a time, on one worker process as shipped: how long
 * until it settles, how many events it writes per node and per run (it continues as new), how much
 * memory and CPU the worker needs.
 *
 *   npm run bench -- --graph [--cluster]   # 10,000 nodes, 1,000 at a time
 *   npm run bench -- --graph --quick       # 1,000 nodes, 100 at a time
 *
 * Writes its figures next to docs/BENCHMARKS.md (`BENCHMARKS.graph.<server>.json`) and its own
 * section of it; `npm run bench` keeps that section.
 */
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GraphClient } from '../src/client/graph-client';
import { startAgentServer } from '../src/demo/agent-server';
import { skywayAir } from '../src/demo/trip-agents';
import { watchedWorker } from './parked';
import type { ServerCost } from './server-cost';
import { withSection, writeSection, type ReportSection, type ServerKind } from './report-section';

export interface GraphFigures {
  date: string;
  command: string;
  nodes: number;
  concurrency: number;
  /** Seconds from the start until the graph settled. */
  seconds: number;
  outcome: string;
  /** Runs of the graph workflow, the most events one run had, and events per node over all runs. */
  runs: number;
  longestRunEvents: number;
  graphEventsPerNode: number;
  /** History bytes of the graph workflow per node (all runs), and of its largest run. */
  graphBytesPerNode?: number;
  longestRunBytes?: number;
  /** Events of one node's delegation (sampled). */
  delegationEvents: number;
  workerPeakRssMiB: number;
  workerCpuSeconds: number;
  /** CPU seconds of the server's processes (PostgreSQL's too) and its persistence writes, start to settle. */
  serverCpuSeconds?: number;
  persistenceWrites?: number;
}

export interface GraphOptions {
  client: Client;
  address: string;
  namespace: string;
  nodes: number;
  concurrency: number;
  server: ServerCost;
  say: (line: string) => void;
}

/** Events and bytes of every run of workflow `id`, oldest first. */
async function runSizes(client: Client, id: string): Promise<{ events: number; bytes: number }[]> {
  const sizes: { events: number; bytes: number }[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(id).describe()).runId;
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(id, runId).fetchHistory();
    const events = history.events ?? [];
    sizes.unshift({ events: events.length, bytes: temporal.api.history.v1.History.encode(history).finish().length });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return sizes;
}

export async function measureLargeGraph(o: GraphOptions): Promise<Omit<GraphFigures, 'date' | 'command'>> {
  const agent = await startAgentServer({ ...skywayAir({ workMs: 0 }), streaming: false });
  const worker = await watchedWorker('bench-graph', o.address, [
    'worker: { maxConcurrentActivities: 100 }',
    'agents:',
    `  skyway-air: { card: "${agent.url}", allowHttp: true, allowPrivateNetwork: true, acceptance: accept-any }`,
  ]);
  try {
    const graphs = new GraphClient(o.client.connection, {
      namespace: o.namespace,
      taskQueue: worker.queue,
      caller: { tenant: 'bench', user: 'bench' },
    });
    // Layers as wide as the concurrency: node i waits for node i - concurrency, and is sent its result.
    const nodes = Array.from({ length: o.nodes }, (_, i) => ({
      id: `n${i}`,
      agent: 'skyway-air',
      text: `Book seat ${i}`,
      ...(i >= o.concurrency ? { dependsOn: [`n${i - o.concurrency}`] } : {}),
    }));
    const cpuAtStart = worker.cpuSeconds();
    const serverCpuAtStart = o.server.cpuSeconds();
    const writesAtStart = await o.server.persistenceWrites();
    const started = performance.now();
    const id = await graphs.start({ concurrency: o.concurrency, nodes }, { id: `bench-graph-${Date.now()}` });
    // Progress from a Query every 10 s; a busy worker may not answer one in time, which is not a failure.
    const progress = setInterval(() => {
      graphs.show(id, { limit: 1 }).then(
        (r) =>
          o.say(
            `  ${r.size - (r.counts.PENDING ?? 0) - (r.counts.RUNNING ?? 0)}/${r.size} done, ${r.counts.RUNNING ?? 0} running, run ${r.runs}`,
          ),
        (err: unknown) => o.say(`  (no progress just now: ${(err as Error).message})`),
      );
    }, 10_000);
    let g;
    try {
      await o.client.workflow.getHandle(id).result();
      g = await graphs.show(id, { limit: 1 });
    } finally {
      clearInterval(progress);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = worker.cpuSeconds() - cpuAtStart;
    const serverCpuSeconds = o.server.cpuSeconds() - serverCpuAtStart;
    const persistenceWrites = (await o.server.persistenceWrites()) - writesAtStart;
    const sizes = await runSizes(o.client, id);
    const runs = sizes.map((r) => r.events);
    const delegationEvents = (await o.client.workflow.getHandle(`${id}/n${o.nodes - 1}`).describe()).historyLength;
    return {
      nodes: o.nodes,
      concurrency: o.concurrency,
      seconds,
      outcome: `${g.outcome?.kind ?? 'none'} (${JSON.stringify(g.counts)})`,
      runs: runs.length,
      longestRunEvents: Math.max(...runs),
      graphEventsPerNode: runs.reduce((a, b) => a + b, 0) / o.nodes,
      graphBytesPerNode: sizes.reduce((a, r) => a + r.bytes, 0) / o.nodes,
      longestRunBytes: Math.max(...sizes.map((r) => r.bytes)),
      delegationEvents,
      workerPeakRssMiB: worker.peakRssMiB(),
      workerCpuSeconds: cpu,
      serverCpuSeconds,
      persistenceWrites,
    };
  } finally {
    await worker.stop();
    await agent.close();
  }
}

const SECTION: ReportSection<GraphFigures> = {
  name: 'graph',
  marks: ['<!-- large graph: written by bench/large-graph.ts -->', '<!-- end of large graph -->'],
  after: '<!-- end of long tasks -->',
  heading: [
    '## One task graph of 10,000 nodes (continue-as-new)',
    '',
    'One graph whose nodes come in layers as wide as its concurrency (node i waits for node i − concurrency and is sent its task and artifact), to an agent that completes at once, on one `baton worker` as shipped (`maxConcurrentActivities: 100`, `continueAsNewAfterEvents` 4,000, each V8 heap capped at 256 MiB: decision 0023). The graph starts its nodes in batches from an activity, each node tells it how it ended by Signal, and it continues as new whenever its history reaches the threshold, with nodes still running (decisions 0022 and 0042; the latter has the figures of nodes started as child workflows, measured the same day). The server’s CPU (PostgreSQL’s too) and its persistence writes are read from its own metrics.',
  ],
  rows: [
    ['nodes, at most running at once', (f) => `${f.nodes}, ${f.concurrency}`],
    ['until the graph settled', (f) => `${f.seconds.toFixed(0)} s (${(f.nodes / f.seconds).toFixed(0)} nodes/s)`],
    ['outcome', (f) => f.outcome],
    ['graph workflow runs; most events in one run', (f) => `${f.runs}; ${f.longestRunEvents}`],
    ['graph events per node (all runs)', (f) => f.graphEventsPerNode.toFixed(1)],
    [
      'graph history bytes per node (all runs); the largest run',
      (f) =>
        f.graphBytesPerNode === undefined || f.longestRunBytes === undefined
          ? 'not measured'
          : `${f.graphBytesPerNode.toFixed(0)}; ${(f.longestRunBytes / 1024 / 1024).toFixed(1)} MiB`,
    ],
    ["one node's delegation: events", (f) => String(f.delegationEvents)],
    ['worker peak RSS', (f) => `${f.workerPeakRssMiB.toFixed(0)} MiB`],
    [
      'worker CPU, in all and per node',
      (f) => `${f.workerCpuSeconds.toFixed(0)} s, ${((f.workerCpuSeconds / f.nodes) * 1000).toFixed(1)} ms`,
    ],
    [
      'server CPU, in all and per node (PostgreSQL included)',
      (f) =>
        f.serverCpuSeconds === undefined
          ? 'not measured'
          : `${f.serverCpuSeconds.toFixed(0)} s, ${((f.serverCpuSeconds / f.nodes) * 1000).toFixed(1)} ms`,
    ],
    [
      'persistence writes per node',
      (f) => (f.persistenceWrites === undefined ? 'not measured' : (f.persistenceWrites / f.nodes).toFixed(1)),
    ],
  ],
};

/** `text` with the graph section rebuilt from the figures kept next to `out`, after the long tasks'. */
export const withGraphSection = (out: string, text: string): string => withSection(out, SECTION, text);

/** Keeps `figures` next to `out` and rewrites its section of `out`. */
export const writeGraph = (out: string, kind: ServerKind, figures: GraphFigures): void => writeSection(out, SECTION, kind, figures);
