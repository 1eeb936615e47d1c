/**
 * The main run's report (docs/BENCHMARKS.md): its header, how to read it, and the table that shows
 * the dev server's and the cluster's last runs side by side. The sections the single measurements
 * own (long tasks, the large graph, served agents, telemetry, MCP) are kept as they are.
 */
import { withAguiSection } from './agui-latency';
import { withNexusSection } from './nexus-latency';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { TEMPORAL_SERVER_VERSION } from '../infra/cluster/server-binary';
import { installedVersion as version } from '../infra/versions';
import { TEMPORAL_CLI_VERSION } from '../src/runtime/temporal-server';
import { withGraphSection } from './large-graph';
import { withLongTaskSection } from './long-tasks';
import { withIdentitySection } from './identity-cost';
import { withDataUseSection } from './data-use-cost';
import { withMcpSection } from './mcp-tools';
import { withServedSection } from './served';
import { withTelemetrySection } from './telemetry-cost';
import { mark, type Report } from './runner';

/** The title of the cluster run's part of docs/BENCHMARKS.md; each kind of run replaces only its own part. */
export const CLUSTER_TITLE = '# On a real cluster';

/** The figures of one run that the side-by-side table shows, kept next to the report (`<out>.<server>.json`). */
export interface RunFigures {
  date: string;
  command: string;
  samples: number;
  p50: { baton: number; bare: number };
  p99: { baton: number; bare: number };
  /** The same latency with the client, the worker and the agents in the benchmark's one process (how earlier runs measured it). */
  oneProcess?: { p50: { baton: number; bare: number }; p99: { baton: number; bare: number } };
  throughput: { level: number; baton: number; bare: number }[];
  calls: Record<string, number>;
  events: { baton: number; bare: number };
  /** History bytes and billable actions of a simple delegation and of the bare workflow (absent in runs before 2026-12-05). */
  historyBytes?: { baton: number; bare: number };
  actions?: { baton: number; bare: number };
  parked: { count: number; shippedPeakMiB: number; cappedPeakMiB: number };
  burst: { count: number; baton: { seconds: number; cpuMsEach: number }; bare: { seconds: number; cpuMsEach: number } };
}

const SIDE_BY_SIDE = ['<!-- side by side: written by bench/run.ts from both runs -->', '<!-- end of side by side -->'] as const;

/** The dev server's and the cluster's figures in one table, with issue #19's targets. */
function sideBySide(runs: { dev?: RunFigures; cluster?: RunFigures }): string[] {
  const cell = (f: RunFigures | undefined, show: (f: RunFigures) => string): string => (f ? show(f) : 'not measured yet');
  const x = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
  const lines = [
    SIDE_BY_SIDE[0],
    '## Dev server and real cluster side by side',
    '',
    'Each column is one run of its own (the date and command below the table), Baton and the bare workflow measured in that same run. The sections after the table have every figure.',
    '',
    '| Figure | Target | Dev server | Real cluster |',
    '|---|---|---|---|',
  ];
  const row = (name: string, target: string, show: (f: RunFigures) => string): void =>
    void lines.push(`| ${name} | ${target} | ${cell(runs.dev, show)} | ${cell(runs.cluster, show)} |`);
  row(
    'latency p50, Baton ÷ bare',
    '≤ 1.1×',
    (f) => `${x(f.p50.baton, f.p50.bare)} (${f.p50.baton.toFixed(0)} / ${f.p50.bare.toFixed(0)} ms)`,
  );
  row(
    'latency p99, Baton ÷ bare',
    '≤ 1.3×',
    (f) => `${x(f.p99.baton, f.p99.bare)} (${f.p99.baton.toFixed(0)} / ${f.p99.bare.toFixed(0)} ms; ${f.samples} samples each)`,
  );
  row('the same, worker inside the benchmark process (with the client and agents)', '(for comparison)', (f) =>
    f.oneProcess
      ? `p50 ${x(f.oneProcess.p50.baton, f.oneProcess.p50.bare)}, p99 ${x(f.oneProcess.p99.baton, f.oneProcess.p99.bare)}`
      : 'not measured',
  );
  row('throughput, Baton ÷ bare, by concurrency', '≥ 0.9×', (f) => f.throughput.map((t) => `${t.level}: ${x(t.baton, t.bare)}`).join(', '));
  row('calls to the agent per delegation, stream (agent works 3 s)', '≤ 3', (f) => (f.calls.stream ?? NaN).toFixed(1));
  row('history events per delegation (bare workflow)', '≤ 14', (f) => `${f.events.baton} (${f.events.bare})`);
  row('history bytes per simple delegation (bare workflow)', '≤ 3 KB', (f) =>
    f.historyBytes ? `${mark(f.historyBytes.baton <= 3_000)} ${f.historyBytes.baton} (${f.historyBytes.bare})` : 'not measured',
  );
  row('billable actions per simple delegation (bare workflow)', '≤ bare', (f) =>
    f.actions ? `${mark(f.actions.baton <= f.actions.bare)} ${f.actions.baton} (${f.actions.bare})` : 'not measured',
  );
  row(
    'parked in WAITING_INPUT: highest worker RSS, as shipped (capped at 192 MiB)',
    '≤ 512 MiB',
    (f) => `${f.parked.shippedPeakMiB.toFixed(0)} MiB (${f.parked.cappedPeakMiB.toFixed(0)} MiB), ${f.parked.count} parked`,
  );
  row(
    'burst: time until all settled, Baton / bare',
    '',
    (f) => `${f.burst.baton.seconds.toFixed(1)} / ${f.burst.bare.seconds.toFixed(1)} s (${f.burst.count})`,
  );
  row(
    'burst: worker CPU per delegation, Baton / bare',
    '',
    (f) => `${f.burst.baton.cpuMsEach.toFixed(1)} / ${f.burst.bare.cpuMsEach.toFixed(1)} ms`,
  );
  lines.push(
    '',
    `Runs: ${(['dev', 'cluster'] as const).flatMap((k) => (runs[k] ? [`${k} \`${runs[k]?.command}\` on ${runs[k]?.date}`] : [])).join('; ')}.`,
    SIDE_BY_SIDE[1],
  );
  return lines;
}

/**
 * Writes the report into `out`: the dev server's run is the file's first part, the cluster's run its
 * last (headings one level down); a run replaces its own part and keeps the other. The side-by-side
 * table at the top is rebuilt from both runs' figures.
 */
export function writeReport(out: string, report: string[], onCluster: boolean, figures: RunFigures): void {
  const figuresFile = (kind: 'dev' | 'cluster'): string => out.replace(/\.md$/, '') + `.${kind}.json`;
  writeFileSync(figuresFile(onCluster ? 'cluster' : 'dev'), `${JSON.stringify(figures, null, 1)}\n`);
  const read = (kind: 'dev' | 'cluster'): RunFigures | undefined =>
    existsSync(figuresFile(kind)) ? (JSON.parse(readFileSync(figuresFile(kind), 'utf8')) as RunFigures) : undefined;
  const before = existsSync(out) ? readFileSync(out, 'utf8') : '';
  const cut = before.indexOf(`\n#${CLUSTER_TITLE}`);
  const [dev, cluster] = cut >= 0 ? [before.slice(0, cut), before.slice(cut + 1)] : [before, ''];
  const text = report.join('\n');
  const mine = onCluster ? text.replace(/^#/gm, '##') : text;
  let whole = onCluster ? `${dev.trimEnd()}\n\n${mine}` : `${mine.trimEnd()}${cluster ? `\n\n${cluster}` : '\n'}`;
  const from = whole.indexOf(SIDE_BY_SIDE[0]);
  const to = whole.indexOf(SIDE_BY_SIDE[1]);
  if (from >= 0 && to > from) whole = whole.slice(0, from) + whole.slice(to + SIDE_BY_SIDE[1].length).replace(/^\n+/, '');
  const title = whole.indexOf('\n');
  const table = sideBySide({ dev: read('dev'), cluster: read('cluster') }).join('\n');
  whole = title >= 0 ? `${whole.slice(0, title)}\n\n${table}\n${whole.slice(title)}` : `${table}\n`;
  writeFileSync(
    out,
    withNexusSection(
      out,
      withAguiSection(
        out,
        withDataUseSection(
          out,
          withIdentitySection(
            out,
            withMcpSection(out, withTelemetrySection(out, withServedSection(out, withGraphSection(out, withLongTaskSection(out, whole))))),
          ),
        ),
      ),
    ),
  );
}

/** The report's title, how to reproduce it, and the machine. */
export function reportHeader(report: Report, o: { onCluster: boolean; command: string; started: number }): void {
  const where = o.onCluster
    ? `a real Temporal ${TEMPORAL_SERVER_VERSION} cluster (PostgreSQL, the services as separate processes, the frontend behind mTLS and the JWT authorizer; infra/cluster)`
    : 'the embedded Temporal dev server (SQLite in memory)';
  report.push(
    o.onCluster ? CLUSTER_TITLE : '# Benchmarks',
    '',
    `Measured by \`bench/run.ts\` on ${where} with loopback agents; they are measurements, not tests. Reproduce with:`,
    '',
    '```bash',
    o.command,
    '```',
    '',
    `Date ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; Temporal CLI ${TEMPORAL_CLI_VERSION}; @temporalio/* ${version('@temporalio/worker')}; @a2a-js/sdk ${version('@a2a-js/sdk')}. The run took ${Math.round((Date.now() - o.started) / 60_000)} min. Server, worker, agents and client share the machine.`,
    '',
  );
}

/** How to read the figures. */
export function readingNotes(report: Report, onCluster: boolean): void {
  report.push(
    '',
    '## Reading the figures',
    '',
    ...(onCluster
      ? [
          '- **On the cluster** every call crosses TLS and the JWT authorizer (a token signature checked per request), and the services call each other over gRPC: a workflow task costs more than on the single-process dev server, for the bare workflow and Baton alike. Compare the ratios; PostgreSQL, not SQLite, holds the history and visibility writes.',
        ]
      : []),
    "- **Latency and throughput against the bare workflow.** The bare workflow is one activity that blocks on SendMessage. A Baton delegation resolves the agent and sends in a local activity inside its first workflow task (decision 0030; the checked card is reused for the agent's `cardTtl`, 60 s), sends the turn on a stream and follows it for up to `readAfterSendMs` (1 s), so an agent that finishes at once is done in one call without a confirming read, decides acceptance in the workflow (a built-in policy is a rule in the resolve's result) and publishes its search attributes once, at settle (decision 0020): one workflow task in all, where the bare workflow has two and an activity. What Baton adds is the patch's marker and `TemporalChangeVersion` write, the publish, the larger payloads (the request, the resolved agent, the record as the result; the card itself is in the artifact store, decision 0040), the card's reference in the store's index and Baton's own checks, in the worker's CPU (the burst's figure) and on the server. Each is measured on a worker process of its own, as deployed, while the benchmark process plays the client and the agents; the same latency on one worker inside the benchmark process (how earlier runs measured it) is shown for comparison. Throughput alternates the two in rounds (bare, Baton, Baton, bare), so that neither pays alone for what the other left the server to do. Every process shares two cores, so CPU is what throughput measures from concurrency 10 on. Figures on two shared cores move by 10 to 20% between runs; compare ratios within one run only.",
    ...(onCluster
      ? []
      : [
          "- **The dev server's dispatch.** The dev server has one history shard, and a shard reads its task queues at most 20 times a second by Temporal's default: past 20 workflows a second, each new workflow task waited 30–50 ms before a worker could take it (WorkflowTaskScheduled to WorkflowTaskStarted), which made the bare workflow (two workflow tasks) and Baton (one) about 90 ms here until decision 0046. The dev server Baton starts now allows 100 reads a second per queue; runs dated before 2026-12-06's second half were taken at the old limit.",
        ]),
    '- **Remote requests.** To a stream agent, the send is one SendStreamingMessage followed for the window, and the observing activity one SubscribeToTask whose settled copy of the task needs no confirming read: an agent that works 3 s costs 2 calls. Poll: the send, GetTasks at 5, 25, 105 and 425 ms in the window, then GetTask every 250 ms growing to 5 s (set `readAfterSendMs: 0` for agents known to be slow). Push: send, register, one read per push.',
    "- **The burst** starts every delegation at once (100 at a time) and waits for all: what a queue of work costs. Each side runs on a worker process of its own, as shipped (`baton worker`, and the SDK's defaults with the same workflow cache of 100 for the bare workflow), and its CPU time is read from /proc.",
    '- **History** stays flat while a delegation polls: the polls and heartbeats of the one long observing activity are not history events.',
    "- **Parked delegations** hold no activity and make no calls. Worker memory: every workflow evaluates the bundle's modules afresh (a reusable V8 context gives each workflow its own module scope), except preloaded ones: zod itself is preloaded once per worker thread (decision 0012), and the schemas built with it are built only when a workflow first validates a message (decision 0020), which took most of the garbage a new workflow made. What remains is V8 growing its heaps lazily while work arrives, up to the cap (`baton worker` caps each heap at 256 MiB by default, decision 0023); it collects them once the worker is quiet. A lower cap bounds the peak further, at some GC time while parking; docs/operations.md explains the choice.",
    "- **Payload encryption** (decision 0019) runs the codec in the client and the worker's main thread, outside the workflow sandbox: each payload is encoded once more (protobuf), sealed with AES-256-GCM (hardware-accelerated) and grows by 28 bytes plus the metadata. A delegation of this size carries a few kilobytes of payloads, what the codec costs is CPU in the client and the worker, on the same two cores as the server. Compare it within one run.",
    '- **Two workers** on one machine share its two cores with the server and the agents, so they cannot add throughput here; the figure says so rather than show scaling.',
    '',
  );
}
