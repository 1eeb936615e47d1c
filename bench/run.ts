/**
 * `npm run bench`: the cost of durability, measured side by side on the embedded dev server with
 * loopback agents. Prints a table and writes docs/BENCHMARKS.md. Never fails on a number.
 *
 *   npm run bench              # the full run (10,000 parked delegations, a 10-minute poll)
 *   npm run bench -- --quick   # small sizes, for trying it out
 *   npm run bench -- --cluster # the same on a real cluster (PostgreSQL, mTLS, JWT; infra/cluster):
 *                              # writes its own section of docs/BENCHMARKS.md, the rest stays
 *   npm run bench -- --long-tasks [--cluster]   # only 10,000 tasks that work for an hour (long-tasks.ts)
 *   npm run bench -- --graph [--cluster]        # only one graph of 10,000 nodes (large-graph.ts)
 *   npm run bench -- --serve [--cluster]        # only Baton serving A2A against direct delegations (served.ts)
 *   npm run bench -- --telemetry [--quick] [--cluster]   # only what traces and metrics cost (telemetry-cost.ts)
 *   npm run bench -- --mcp [--quick] [--cluster]         # only what a workflow's MCP tool call costs (mcp-tools.ts)
 *   npm run bench -- --identity [--quick]                # only what OAuth 2.0 to an agent costs (identity-cost.ts)
 *   npm run bench -- --data-use [--quick]                # only what data labels and terms cost (data-use-cost.ts)
 *   npm run bench -- --agui [--quick]                    # only how soon an AG-UI front end sees a change (agui-latency.ts)
 *   npm run bench -- --nexus [--quick] [--cluster]       # only a delegation through Nexus against a direct one (nexus-latency.ts)
 */
import type { ServerCost } from './server-cost';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import pino from 'pino';
import { installTemporalRuntime } from '../src/runtime/logger';
import { projectRoot } from '../src/runtime/project-root';
import { measureEncryption, reportEncryption } from './encryption';
import { measureHistory, reportHistory, watchPolling } from './history';
import { measureIdentityCost, writeIdentity } from './identity-cost';
import { measureDataUseCost, writeDataUse } from './data-use-cost';
import { measureAguiLatency, writeAgui } from './agui-latency';
import { measureNexusLatency, writeNexus } from './nexus-latency';
import { measureLargeGraph, writeGraph } from './large-graph';
import { measureLatency, reportLatency } from './latency';
import { measureLongTasks, writeLongTasks } from './long-tasks';
import { readingNotes, reportHeader, writeReport, type RunFigures } from './main-report';
import { measureMcpTools, writeMcp } from './mcp-tools';
import { HEAP_CAP, measureParked, peakOf, reportParked } from './parked';
import { measureRemoteCalls, reportRemoteCalls } from './remote-calls';
import type { ServerKind } from './report-section';
import { benchTarget, connectBench, Report, say, sizeOf, startBenchRun, startBenchServer, type BenchServer } from './runner';
import { measureServed, writeServed } from './served';
import { measureTelemetryCost, writeTelemetry } from './telemetry-cost';
import { measureThroughput, reportThroughput } from './throughput';
import { measureBurst, measureWorkerProcesses, reportBurst, reportWorkerProcesses } from './worker-processes';

interface Options {
  quick: boolean;
  onCluster: boolean;
  out: string;
}

/** A measurement run alone: it rewrites its own section of the report. */
interface SinglePart {
  flag: string;
  run(o: Options, at: { client: Client; address: string; namespace: string; server: ServerCost }): Promise<object>;
  write(out: string, kind: ServerKind, figures: never): void;
}

const PARTS: SinglePart[] = [
  {
    flag: 'long-tasks',
    run: (o, at) => {
      const size = o.quick ? { count: 500, every: '30s', minutes: 2 } : { count: 10_000, every: '1m', minutes: 10 };
      say(`${size.count} tasks that work for an hour, read every ${size.every}…`);
      const attemptSpan = process.env.BENCH_SPARSE_ATTEMPT_SPAN;
      return measureLongTasks({ ...at, say, ...size, ...(attemptSpan ? { attemptSpan } : {}) });
    },
    write: writeLongTasks,
  },
  {
    flag: 'serve',
    run: (o, at) => {
      const samples = o.quick ? 30 : 200;
      say(`${samples} tasks each: direct, served over JSON-RPC, served over gRPC…`);
      return measureServed({ ...at, say, samples });
    },
    write: writeServed,
  },
  {
    flag: 'telemetry',
    run: (o, at) => {
      const samples = o.quick ? 50 : 200;
      say(`${samples} delegations each: telemetry off, traces on, metrics on…`);
      return measureTelemetryCost({ ...at, say, samples });
    },
    write: writeTelemetry,
  },
  {
    flag: 'mcp',
    run: (o, at) => {
      const samples = o.quick ? 30 : 200;
      say(`${samples} order lookups each: a plain activity, callMcpTool over stdio and HTTP, kept and per call…`);
      return measureMcpTools({ client: at.client, target: benchTarget(o.onCluster, at), namespace: at.namespace, samples, say });
    },
    write: writeMcp,
  },
  {
    flag: 'identity',
    run: (o, at) => {
      const samples = o.quick ? 30 : 200;
      say(`${samples} delegations each: without credentials and with OAuth, cached and in the first send…`);
      return measureIdentityCost({ ...at, say, samples });
    },
    write: writeIdentity,
  },
  {
    flag: 'data-use',
    run: (o, at) => {
      const samples = o.quick ? 30 : 200;
      say(`${samples} delegations each: unlabelled, labelled with terms sent, labelled without them…`);
      return measureDataUseCost({ ...at, say, samples });
    },
    write: writeDataUse,
  },
  {
    flag: 'agui',
    run: (o, at) => {
      const samples = o.quick ? 20 : 200;
      say(`${samples} delegations through /agui, each a question answered, then completed…`);
      return measureAguiLatency({ ...at, say, samples });
    },
    write: writeAgui,
  },
  {
    flag: 'nexus',
    run: (o, at) => {
      const samples = o.quick ? 20 : 200;
      say(`${samples} delegations each: started directly, and through Nexus from a caller workflow in another namespace…`);
      return measureNexusLatency({ ...at, target: benchTarget(o.onCluster, at), say, samples });
    },
    write: writeNexus,
  },
  {
    flag: 'graph',
    run: (o, at) => {
      const size = o.quick ? { nodes: 1_000, concurrency: 100 } : { nodes: 10_000, concurrency: 1_000 };
      say(`one graph of ${size.nodes} nodes, ${size.concurrency} at a time…`);
      return measureLargeGraph({ ...at, say, ...size });
    },
    write: writeGraph,
  },
];

/** One part alone: measures it, rewrites its section of the report. */
async function runPart(part: SinglePart, o: Options, server: BenchServer): Promise<number> {
  const connection = await connectBench(o.onCluster, server);
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const figures = await part.run(o, { client, address: server.address, namespace: server.namespace, server: server.cost });
    const command = `npm run bench -- --${part.flag}${o.quick ? ' --quick' : ''}${o.onCluster ? ' --cluster' : ''}`;
    const dated = { date: new Date().toISOString().slice(0, 10), command, ...figures };
    part.write(o.out, o.onCluster ? 'cluster' : 'dev', dated as never);
    say(JSON.stringify(figures));
    return 0;
  } finally {
    await connection.close();
  }
}

/** The main run: every measurement in turn on one server, then the report and the side-by-side table. */
async function runMain(o: Options, server: BenchServer): Promise<number> {
  const started = Date.now();
  const size = sizeOf(o.quick);
  const command = `npm run bench${o.quick || o.onCluster ? ` --${o.quick ? ' --quick' : ''}${o.onCluster ? ' --cluster' : ''}` : ''}`;
  const connection = await connectBench(o.onCluster, server);
  const run = await startBenchRun(size, o.onCluster, server, connection);
  try {
    const latency = await measureLatency(run);
    const throughput = await measureThroughput(run, latency);
    await latency.shipped.baton.stop();
    await latency.shipped.bare.stop();
    const history = await measureHistory(run);
    const polling = await watchPolling(run);
    const calls = await measureRemoteCalls(run);
    const park = (workerEnv?: Record<string, string>) =>
      measureParked({
        client: run.client,
        connection,
        address: server.address,
        namespace: server.namespace,
        agent: { url: run.agents.qa.agent.url, calls: run.agents.qa.calls },
        count: size.parked,
        workerEnv,
        say,
      });
    say(`parking ${size.parked} delegations in WAITING_INPUT…`);
    const parked = await park();
    say(`parking ${size.parked} more, the worker's heap capped (${HEAP_CAP})…`);
    const parkedCapped = await park({ NODE_OPTIONS: HEAP_CAP });
    const workers = await measureWorkerProcesses(run);
    const burst = await measureBurst(run);
    const encryption = await measureEncryption(run, latency);
    const pollSamples = await polling.finish();

    const report = new Report();
    reportHeader(report, { onCluster: o.onCluster, command, started });
    reportLatency(report, latency);
    reportThroughput(report, throughput);
    reportHistory(report, history, pollSamples, size.pollMinutes);
    reportRemoteCalls(report, calls, size.modeRuns);
    reportParked(report, size.parked, parked, parkedCapped);
    reportWorkerProcesses(report, workers);
    reportBurst(report, size.burst, burst);
    reportEncryption(report, encryption, size.latency, history.simple.historySize ?? 0);
    readingNotes(report, o.onCluster);
    const p = latency.p;
    const figures: RunFigures = {
      date: new Date().toISOString().slice(0, 10),
      command,
      samples: size.latency,
      p50: { baton: p('baton', 0.5), bare: p('bare', 0.5) },
      p99: { baton: p('baton', 0.99), bare: p('bare', 0.99) },
      oneProcess: {
        p50: { baton: p('batonOneProcess', 0.5), bare: p('bareOneProcess', 0.5) },
        p99: { baton: p('batonOneProcess', 0.99), bare: p('bareOneProcess', 0.99) },
      },
      throughput,
      calls,
      events: { baton: history.simple.historyLength, bare: history.bare.historyLength },
      historyBytes: { baton: history.simple.historySize ?? 0, bare: history.bare.historySize ?? 0 },
      actions: { baton: history.actions.simple, bare: history.actions.bare },
      parked: { count: size.parked, shippedPeakMiB: peakOf(parked) / 2 ** 20, cappedPeakMiB: peakOf(parkedCapped) / 2 ** 20 },
      burst: { count: size.burst, ...burst },
    };
    writeReport(o.out, report.lines, o.onCluster, figures);
    process.stdout.write(`${report.lines.join('\n')}\n`);
    say(`wrote ${o.out}`);
    return 0;
  } finally {
    await run.close();
    await connection.close();
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      cluster: { type: 'boolean', default: false },
      'long-tasks': { type: 'boolean', default: false },
      graph: { type: 'boolean', default: false },
      serve: { type: 'boolean', default: false },
      telemetry: { type: 'boolean', default: false },
      mcp: { type: 'boolean', default: false },
      identity: { type: 'boolean', default: false },
      'data-use': { type: 'boolean', default: false },
      agui: { type: 'boolean', default: false },
      nexus: { type: 'boolean', default: false },
      out: { type: 'string', default: join(projectRoot(), 'docs', 'BENCHMARKS.md') },
    },
  });
  const o: Options = { quick: values.quick ?? false, onCluster: values.cluster ?? false, out: values.out ?? '' };
  installTemporalRuntime(pino({ level: 'error' }, pino.destination(2)));
  // The dev server, or a real cluster reached as production reaches it (mTLS and a token, from the environment).
  const server = await startBenchServer(o.onCluster);
  try {
    const part = PARTS.find((p) => values[p.flag as keyof typeof values] === true);
    return part ? await runPart(part, o, server) : await runMain(o, server);
  } finally {
    await server.stop();
  }
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`benchmark failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
