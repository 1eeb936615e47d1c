/**
 * Many remote tasks that work for an hour, followed by one worker process with 100 activity slots:
 * are they all read at least once per `sparsePoll.every`, does their history stay still, how much
 * memory does the worker need, how many calls does a task cost per hour?
 *
 *   npm run bench -- --long-tasks [--cluster]   # 10,000 tasks, read every minute, for 10 minutes
 *   npm run bench -- --long-tasks --quick       # 500 tasks, read every 30 s, for 2 minutes
 *
 * Writes its figures next to docs/BENCHMARKS.md (`BENCHMARKS.long-tasks.<server>.json`) and its own
 * section of it; `npm run bench` keeps that section.
 */
import { Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import { BatonClient } from '../src/client/baton-client';
import { startAgentServer } from '../src/demo/agent-server';
import { skywayAir } from '../src/demo/trip-agents';
import { startMany, watchedWorker } from './parked';
import type { ServerCost } from './server-cost';
import { withSection, writeSection, type ReportSection, type ServerKind } from './report-section';

export interface LongTaskFigures {
  date: string;
  command: string;
  count: number;
  every: string;
  maxConcurrentActivities: number;
  /** Seconds until every task had been read once (the starts included). */
  secondsToAllRead: number;
  windowMinutes: number;
  /** Reads per task in the window: fewest, median. */
  readsPerTask: { min: number; median: number };
  /** Longest time between two reads of one task in the window (seconds), and tasks whose gap passed `every` by more than 10 s. */
  longestGapSeconds: number;
  lateTasks: number;
  callsPerTaskPerHour: number;
  /** History events of sampled delegations at the window's start and end. */
  history: { sampled: number; eventsAtStart: number; grownBy: number };
  workerPeakRssMiB: number;
  workerCpuSecondsPerHour: number;
  /** How long one attempt of the sparse reads lasts (`sparsePoll.attemptSpan`; unset before decision 0041). */
  attemptSpan?: string;
  /** The server's CPU (PostgreSQL's too, on the cluster) per read in the window, in ms. */
  serverCpuMsPerRead?: number;
  /** Persistence writes (the server's own `persistence_requests`, reads left out) per read in the window. */
  persistenceWritesPerRead?: number;
}

export interface LongTaskOptions {
  client: Client;
  address: string;
  namespace: string;
  count: number;
  every: string;
  minutes: number;
  say: (line: string) => void;
  /** What the server spends. */
  server: ServerCost;
  /**
   * `sparsePoll.attemptSpan` for the agent: the same as `every` reads once per attempt, as before
   * decision 0041 (`BENCH_SPARSE_ATTEMPT_SPAN=1m` measures that). Default: the agent entry's default.
   */
  attemptSpan?: string;
}

export async function measureLongTasks(o: LongTaskOptions): Promise<Omit<LongTaskFigures, 'date' | 'command'>> {
  const everyMs = msToNumber(o.every);
  /** Per remote task: reads, and the longest gap between two reads since `since`. */
  const reads = new Map<string, { n: number; last: number; gap: number }>();
  let since = 0;
  const agent = await startAgentServer(
    { ...skywayAir({ workMs: 3_600_000 }), streaming: false },
    {
      holdResponse: (method, params) => {
        const id = (params as { id?: unknown } | undefined)?.id;
        if (method !== 'GetTask' || typeof id !== 'string') return 0;
        const now = Date.now();
        const r = reads.get(id) ?? { n: 0, last: now, gap: 0 };
        if (r.last >= since) r.gap = Math.max(r.gap, now - r.last);
        r.n += 1;
        r.last = now;
        reads.set(id, r);
        return 0;
      },
    },
  );
  const worker = await watchedWorker('bench-long', o.address, [
    'worker: { maxConcurrentActivities: 100 }',
    'agents:',
    `  skyway-air: { card: "${agent.url}", allowHttp: true, allowPrivateNetwork: true, observe: poll, readAfterSendMs: 0,`,
    `    sparsePoll: { after: 0s, every: ${o.every}${o.attemptSpan ? `, attemptSpan: ${o.attemptSpan}` : ''} }, contract: { maxRemoteCalls: 100000 } }`,
  ]);
  try {
    const baton = new BatonClient(o.client.connection, {
      namespace: o.namespace,
      taskQueue: worker.queue,
      caller: { tenant: 'bench', user: 'bench' },
    });
    const started = performance.now();
    const ids = await startMany(baton, o.count, 'skyway-air', 'Hold a seat for an hour');
    o.say(`  started ${o.count} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    while (reads.size < o.count && performance.now() - started < 30 * 60_000) {
      await new Promise((r) => setTimeout(r, 2_000));
      o.say(`  read once: ${reads.size}/${o.count}`);
    }
    const secondsToAllRead = (performance.now() - started) / 1000;
    // Let the first reads' retries settle into their rhythm, then measure a window.
    await new Promise((r) => setTimeout(r, everyMs));
    const sampled = ids.filter((_, i) => i % Math.max(1, Math.floor(ids.length / 200)) === 0).slice(0, 200);
    const lengths = async (): Promise<number[]> =>
      Promise.all(sampled.map(async (id) => (await o.client.workflow.getHandle(id).describe()).historyLength));
    const atStart = await lengths();
    since = Date.now();
    for (const r of reads.values()) r.gap = 0;
    const readsAtStart = new Map([...reads].map(([id, r]) => [id, r.n]));
    const cpuAtStart = worker.cpuSeconds();
    const serverCpuAtStart = o.server.cpuSeconds();
    const writesAtStart = await o.server.persistenceWrites();
    const windowMs = o.minutes * 60_000;
    for (let left = windowMs; left > 0; left -= 60_000) {
      await new Promise((r) => setTimeout(r, Math.min(60_000, left)));
      o.say(`  window: ${((windowMs - left + Math.min(60_000, left)) / 60_000).toFixed(0)}/${o.minutes} min`);
    }
    const cpu = worker.cpuSeconds() - cpuAtStart;
    const serverCpu = o.server.cpuSeconds() - serverCpuAtStart;
    const writes = (await o.server.persistenceWrites()) - writesAtStart;
    const atEnd = await lengths();
    const now = Date.now();
    const inWindow = [...reads].map(([id, r]) => r.n - (readsAtStart.get(id) ?? 0)).sort((a, b) => a - b);
    const readsInWindow = inWindow.reduce((a, b) => a + b, 0);
    // A gap still open at the end counts too.
    const gaps = [...reads.values()].map((r) => Math.max(r.gap, now - r.last));
    return {
      count: o.count,
      every: o.every,
      maxConcurrentActivities: 100,
      secondsToAllRead,
      windowMinutes: o.minutes,
      readsPerTask: { min: inWindow[0] ?? 0, median: inWindow[Math.floor(inWindow.length / 2)] ?? 0 },
      longestGapSeconds: Math.max(...gaps) / 1000,
      lateTasks: gaps.filter((g) => g > everyMs + 10_000).length,
      callsPerTaskPerHour: (inWindow.reduce((a, b) => a + b, 0) / inWindow.length) * (60 / o.minutes),
      history: {
        sampled: sampled.length,
        eventsAtStart: Math.max(...atStart),
        grownBy: Math.max(...atEnd.map((n, i) => n - (atStart[i] ?? 0))),
      },
      workerPeakRssMiB: worker.peakRssMiB(),
      workerCpuSecondsPerHour: cpu * (60 / o.minutes),
      attemptSpan: o.attemptSpan ?? '5m',
      serverCpuMsPerRead: (serverCpu * 1000) / Math.max(1, readsInWindow),
      persistenceWritesPerRead: writes / Math.max(1, readsInWindow),
    };
  } finally {
    await worker.stop();
    await agent.close();
  }
}

/** The section of docs/BENCHMARKS.md for these figures, from each server's last run. */
const SECTION: ReportSection<LongTaskFigures> = {
  name: 'long-tasks',
  marks: ['<!-- long tasks: written by bench/long-tasks.ts -->', '<!-- end of long tasks -->'],
  after: '<!-- end of side by side -->',
  heading: [
    '## Remote tasks that work for an hour, on one worker (sparse reads)',
    '',
    "Each delegation follows a task that works for an hour, by poll with `sparsePoll: { after: 0s, every }`: each attempt of an activity that Temporal retries reads the task, then the worker holds the attempt (no slot) and reads the task every `every` until news or the end of the attempt's span (`attemptSpan`, 5 minutes by default; decision 0041), so no activity slot is held between reads and the server writes per attempt, not per read. One `baton worker` as shipped, with `maxConcurrentActivities: 100` and its V8 heaps capped at the default 256 MiB (decision 0023; RSS and CPU are those of the command and its capped worker process together); the agent counts the reads of each task; the server's CPU (PostgreSQL's too) and its persistence writes (`persistence_requests`, reads left out) are read from its own metrics. Decision 0041 has the figures of one read per attempt, measured the same day.",
  ],
  rows: [
    ['tasks, read every', (f) => `${f.count}, ${f.every}`],
    ['until every task was read once (starts included)', (f) => `${f.secondsToAllRead.toFixed(0)} s`],
    ['reads per task in the window: fewest / median', (f) => `${f.readsPerTask.min} / ${f.readsPerTask.median} in ${f.windowMinutes} min`],
    [
      'longest time between two reads of one task',
      (f) => `${f.longestGapSeconds.toFixed(0)} s (${f.lateTasks} tasks over the interval + 10 s)`,
    ],
    ['calls per task per hour', (f) => f.callsPerTaskPerHour.toFixed(1)],
    [
      'history growth per delegation in the window',
      (f) => `${f.history.grownBy} events (at ${f.history.eventsAtStart}; ${f.history.sampled} sampled)`,
    ],
    ['worker peak RSS', (f) => `${f.workerPeakRssMiB.toFixed(0)} MiB`],
    ['worker CPU per hour', (f) => `${f.workerCpuSecondsPerHour.toFixed(0)} s`],
    ['one attempt reads for (`attemptSpan`)', (f) => f.attemptSpan ?? 'one read (before decision 0041)'],
    ['server CPU per read', (f) => (f.serverCpuMsPerRead === undefined ? 'not measured' : `${f.serverCpuMsPerRead.toFixed(2)} ms`)],
    [
      'persistence writes per read',
      (f) => (f.persistenceWritesPerRead === undefined ? 'not measured' : f.persistenceWritesPerRead.toFixed(2)),
    ],
  ],
};

/** `text` with the long-task section rebuilt from the figures kept next to `out`, after the side-by-side table. */
export const withLongTaskSection = (out: string, text: string): string => withSection(out, SECTION, text);

/** Keeps `figures` next to `out` and rewrites its section of `out`. */
export const writeLongTasks = (out: string, kind: ServerKind, figures: LongTaskFigures): void => writeSection(out, SECTION, kind, figures);
