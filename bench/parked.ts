/**
 * Parks delegations in WAITING_INPUT on a worker process of their own and reads that process's memory
 * as they pile up. Used by `bench/run.ts`; run alone to try worker memory settings:
 *
 *   node lib/bench/parked.js --count 3000 [--node-options "--max-old-space-size=256"]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { BatonClient } from '../src/client/baton-client';
import { startAgentServer } from '../src/demo/agent-server';
import { supplierQa } from '../src/demo/supplier-qa';
import { startTemporal } from '../src/runtime/temporal-server';
import { CliProcess, userEnv } from '../infra/cli-process';
import { treeCpuSeconds, treeRssBytes } from './process-tree';
import { mark, type Report } from './runner';

/** The V8 heap cap docs/operations.md suggests for workers (each isolate: the main and the workflow thread). */
export const HEAP_CAP = '--max-old-space-size=192';

export interface ParkedFigures {
  count: number;
  seconds: number;
  rssIdle: number;
  rssParked: number;
  /** RSS after every tenth of the delegations parked. */
  curve: { parked: number; rss: number }[];
  pendingActivities: number;
  callsWhileParked: number;
}

export interface ParkOptions {
  client: Client;
  connection: Connection;
  address: string;
  namespace: string;
  /** The card URL of an agent that asks for input, and a counter of its calls. */
  agent: { url: string; calls: () => number };
  count: number;
  /** Extra environment for the worker process (NODE_OPTIONS to try heap limits). */
  workerEnv?: Record<string, string>;
  say: (line: string) => void;
}

/**
 * A `baton worker` process on a task queue of its own (`<kind>-<time>`), its config the given lines
 * (YAML) after the Temporal address and queue, with an artifacts folder; started.
 */
export async function workerProcess(
  kind: string,
  address: string,
  lines: string[],
  env: Record<string, string> = {},
): Promise<{ worker: CliProcess; queue: string }> {
  const dir = mkdtempSync(join(tmpdir(), `${kind}-`));
  const queue = `${kind}-${Date.now()}`;
  const config = join(dir, 'baton.config.yaml');
  writeFileSync(
    config,
    [`temporal: { address: "${address}", taskQueue: "${queue}" }`, ...lines, `artifacts: { path: "${dir}/artifacts" }`].join('\n'),
  );
  const worker = new CliProcess(['worker'], userEnv({ BATON_CONFIG: config, BATON_LOG_LEVEL: 'info', BATON_LOG_FORMAT: 'json', ...env }));
  await worker.waitFor('worker started', 'stderr');
  return { worker, queue };
}

/** A worker process (see `workerProcess`) whose resident memory is sampled every second and whose CPU time can be read. */
export async function watchedWorker(
  kind: string,
  address: string,
  lines: string[],
): Promise<{ queue: string; peakRssMiB(): number; cpuSeconds(): number; stop(): Promise<void> }> {
  const { worker, queue } = await workerProcess(kind, address, lines);
  const pid = worker.child.pid ?? 0;
  let peak = 0;
  const sample = setInterval(() => (peak = Math.max(peak, treeRssBytes(pid))), 1_000);
  return {
    queue,
    peakRssMiB: () => peak / 2 ** 20,
    cpuSeconds: () => treeCpuSeconds(pid),
    stop: async () => {
      clearInterval(sample);
      worker.child.kill('SIGTERM');
      await worker.exited;
    },
  };
}

/** Starts `count` delegations to `agent`, 50 at a time; their ids. */
export async function startMany(baton: BatonClient, count: number, agent: string, text: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (cursor < count) {
        cursor += 1;
        ids.push(await baton.start({ agent, parts: [{ text }] }));
      }
    }),
  );
  return ids;
}

export async function measureParked(o: ParkOptions): Promise<ParkedFigures> {
  const { worker, queue } = await workerProcess(
    'bench-parked',
    o.address,
    ['agents:', `  supplier-qa: { card: "${o.agent.url}", allowHttp: true, allowPrivateNetwork: true }`],
    o.workerEnv,
  );
  const rss = (): number => treeRssBytes(worker.child.pid ?? 0);
  try {
    const rssIdle = rss();
    const baton = new BatonClient(o.connection, { namespace: o.namespace, taskQueue: queue, caller: { tenant: 'bench', user: 'bench' } });
    const started = performance.now();
    const ids = await startMany(baton, o.count, 'supplier-qa', 'Verify inspection-92 against order A1042');
    const curve: ParkedFigures['curve'] = [];
    const step = Math.max(1, Math.floor(o.count / 10));
    let parked = 0;
    while (parked < o.count && performance.now() - started < 30 * 60_000) {
      await new Promise((r) => setTimeout(r, 2_000));
      parked = (await o.client.workflow.count(`TaskQueue = '${queue}' AND BatonStatus = 'WAITING_INPUT'`)).count;
      if (parked >= (curve.length + 1) * step || parked >= o.count) curve.push({ parked, rss: rss() });
      o.say(`  parked ${parked}/${o.count}, worker RSS ${(rss() / 2 ** 20).toFixed(0)} MiB`);
    }
    const seconds = (performance.now() - started) / 1000;
    const callsBefore = o.agent.calls();
    await new Promise((r) => setTimeout(r, 30_000));
    const callsWhileParked = o.agent.calls() - callsBefore;
    const rssParked = rss();
    let pendingActivities = 0;
    for (const id of ids.slice(0, 100))
      pendingActivities += (await o.client.workflow.getHandle(id).describe()).raw.pendingActivities?.length ?? 0;
    return { count: o.count, seconds, rssIdle, rssParked, curve, pendingActivities, callsWhileParked };
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '3000' }, 'node-options': { type: 'string' } } });
  const server = await startTemporal({ own: true, uiPort: false });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  let calls = 0;
  const qa = await startAgentServer(supplierQa({ workMs: 50 }), { holdResponse: () => ((calls += 1), 0) });
  try {
    const say = (line: string): void => void process.stderr.write(`${line}\n`);
    const env = values['node-options'] ? { NODE_OPTIONS: values['node-options'] } : undefined;
    const f = await measureParked({
      client,
      connection,
      address: server.address,
      namespace: server.namespace,
      agent: { url: qa.url, calls: () => calls },
      count: Number(values.count),
      workerEnv: env,
      say,
    });
    process.stdout.write(
      `${JSON.stringify({ ...f, curve: f.curve.map((c) => `${c.parked}:${(c.rss / 2 ** 20).toFixed(0)}MiB`) }, null, 1)}\n`,
    );
  } finally {
    await qa.close();
    await connection.close();
    await server.stop();
  }
}

if (require.main === module) {
  void main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}

/** The parked section of the main report: as shipped, and with the heap capped lower. */
export function reportParked(report: Report, count: number, parked: ParkedFigures, capped: ParkedFigures): void {
  report.push(
    '',
    `## ${count} delegations parked in WAITING_INPUT (one worker process)`,
    '',
    `| Figure | As shipped (256 MiB per heap) | Heap capped lower (\`NODE_OPTIONS=${HEAP_CAP}\`) | Target |`,
    '|---|---|---|---|',
  );
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;
  report.row([
    'time to park them all',
    `${parked.seconds.toFixed(0)} s (${(count / parked.seconds).toFixed(1)}/s)`,
    `${capped.seconds.toFixed(0)} s (${(count / capped.seconds).toFixed(1)}/s)`,
    '',
  ]);
  report.row([
    'worker RSS idle → 30 s after the last parked',
    `${mib(parked.rssIdle)} → ${mib(parked.rssParked)}`,
    `${mib(capped.rssIdle)} → ${mib(capped.rssParked)}`,
    '',
  ]);
  report.row([
    'highest RSS while parking (sampled each tenth)',
    mib(peakOf(parked)),
    mib(peakOf(capped)),
    `≤ 512 MiB ${mark(peakOf(parked) <= 512 * 2 ** 20)} / ${mark(peakOf(capped) <= 512 * 2 ** 20)}`,
  ]);
  report.row([
    'activities running (100 sampled)',
    parked.pendingActivities,
    capped.pendingActivities,
    `0 ${mark(parked.pendingActivities + capped.pendingActivities === 0)}`,
  ]);
  report.row([
    'calls to the agent in 30 s while parked',
    parked.callsWhileParked,
    capped.callsWhileParked,
    `0 ${mark(parked.callsWhileParked + capped.callsWhileParked === 0)}`,
  ]);
}

/** The highest worker RSS while parking, in bytes. */
export const peakOf = (f: ParkedFigures): number => Math.max(...f.curve.map((c) => c.rss));
