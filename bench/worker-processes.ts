/**
 * Worker processes as shipped: one against two on one task queue (concurrency 100), and a burst of
 * many delegations started at once on one worker process against as many bare workflows on one of
 * their own (time until all settled, and the worker's CPU time from /proc).
 */
import { randomUUID } from 'node:crypto';
import { treeCpuSeconds } from './process-tree';
import { bareCallWorkflow } from './workflows';
import { delegateOnce } from './latency';
import { inParallel, ms, ratio, say, secondsFor, type BenchRun, type Report, type WorkerProcess } from './runner';

export async function measureWorkerProcesses(run: BenchRun): Promise<{ one: number; two: number }> {
  say('one against two worker processes…');
  const rate = async (count: number): Promise<number> => {
    const queue = `bench-workers-${count}`;
    const procs = await run.batonWorkers(queue, count);
    const once = delegateOnce(run.batonOn(queue));
    await once();
    const r = run.size.total / (await secondsFor(once, 100, run.size.total));
    for (const w of procs) w.child.kill('SIGTERM');
    await Promise.all(procs.map((w) => w.exited));
    return r;
  };
  return { one: await rate(1), two: await rate(2) };
}

export function reportWorkerProcesses(report: Report, w: { one: number; two: number }): void {
  report.push(
    '',
    '## Worker processes on one task queue (concurrency 100, agent completes at once)',
    '',
    '| Workers | Delegations per second |',
    '|---|---|',
  );
  report.row([1, w.one.toFixed(1)]);
  report.row([2, `${w.two.toFixed(1)} (${(w.two / w.one).toFixed(2)}×)`]);
}

export interface BurstFigures {
  seconds: number;
  cpuMsEach: number;
}

/** A burst of `size.burst` on one worker process of `kind`, after one warm-up. */
async function burstOf(run: BenchRun, kind: 'baton' | 'bare'): Promise<BurstFigures> {
  const queue = `bench-burst-${kind}`;
  let proc: WorkerProcess;
  let start: () => Promise<() => Promise<unknown>>;
  if (kind === 'baton') {
    proc = await run.batonWorker(queue);
    const b = run.batonOn(queue);
    start = async () => {
      const id = await b.start({ agent: 'instant', parts: [{ text: 'book it' }] });
      return () => b.result(id);
    };
  } else {
    proc = await run.bareWorker(queue);
    start = async () => {
      const h = await run.client.workflow.start(bareCallWorkflow, {
        taskQueue: queue,
        workflowId: `bare-${randomUUID()}`,
        args: [{ baseUrl: run.agents.instant.agent.url, text: 'book it', messageId: randomUUID() }],
      });
      return () => h.result();
    };
  }
  try {
    await (
      await start()
    )();
    const cpu0 = treeCpuSeconds(proc.pid);
    const t = performance.now();
    const waits = await inParallel(run.size.burst, 100, () => start());
    await inParallel(waits.length, 100, (i) => (waits[i] as () => Promise<unknown>)());
    const seconds = (performance.now() - t) / 1000;
    return { seconds, cpuMsEach: ((treeCpuSeconds(proc.pid) - cpu0) * 1000) / run.size.burst };
  } finally {
    await proc.stop();
  }
}

export async function measureBurst(run: BenchRun): Promise<{ baton: BurstFigures; bare: BurstFigures }> {
  say(`a burst of ${run.size.burst}…`);
  const bare = await burstOf(run, 'bare');
  const baton = await burstOf(run, 'baton');
  return { baton, bare };
}

export function reportBurst(report: Report, count: number, b: { baton: BurstFigures; bare: BurstFigures }): void {
  report.push(
    '',
    `## A burst of ${count} (started at once, agent completes at once; one worker process each, as shipped)`,
    '',
    '| | Baton | Bare workflow | Baton ÷ bare |',
    '|---|---|---|---|',
  );
  report.row([
    'time until all settled',
    `${b.baton.seconds.toFixed(1)} s`,
    `${b.bare.seconds.toFixed(1)} s`,
    ratio(b.baton.seconds, b.bare.seconds),
  ]);
  report.row(['worker CPU time per delegation', ms(b.baton.cpuMsEach), ms(b.bare.cpuMsEach), ratio(b.baton.cpuMsEach, b.bare.cpuMsEach)]);
}
