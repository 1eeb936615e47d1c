/**
 * Latency of one delegation to an agent that completes at once, all in the same run, sequential,
 * after a warm-up: Baton and the bare workflow each on a worker process of its own, as deployed (the
 * client and the agents stay in this process), and both again on the benchmark's own worker, as
 * earlier runs measured them. The direct SDK call is the floor.
 */
import { randomUUID } from 'node:crypto';
import type { BatonClient } from '../src/client/baton-client';
import { directCall } from './direct-call';
import { quantile } from './report-section';
import { mark, ms, ratio, say, type BenchRun, type Report, type WorkerProcess } from './runner';

/** What is timed: one call each. */
export interface Calls {
  direct: () => Promise<void>;
  bare: () => Promise<void>;
  baton: () => Promise<void>;
  bareOneProcess: () => Promise<void>;
  batonOneProcess: () => Promise<void>;
}

export interface Latency {
  samples: number;
  /** The `q` quantile of kind `k`, in ms. */
  p(k: keyof Calls, q: number): number;
  /** The calls, for the measurements that time them again (throughput, encryption). */
  one: Calls;
  /** The worker processes the calls run on; stopped once throughput is measured too. */
  shipped: { baton: WorkerProcess; bare: WorkerProcess };
}

/** One delegation to the instant agent through `b`, to its end. */
export const delegateOnce = (b: BatonClient) => async (): Promise<void> =>
  void (await b.result(await b.start({ agent: 'instant', parts: [{ text: 'book it' }] })));

export async function measureLatency(run: BenchRun): Promise<Latency> {
  say('latency…');
  const shipped = { baton: await run.batonWorker('bench-shipped'), bare: await run.bareWorker('bench-shipped-bare') };
  const one: Calls = {
    direct: async () => void (await directCall(run.agents.instant.agent.url, 'book it', randomUUID())),
    bare: () => run.bareCall('bench-shipped-bare'),
    baton: delegateOnce(run.batonOn('bench-shipped')),
    bareOneProcess: () => run.bareCall(run.taskQueue),
    batonOneProcess: delegateOnce(run.baton),
  };
  const kinds = Object.keys(one) as (keyof Calls)[];
  const lat = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<keyof Calls, number[]>;
  for (const k of kinds) for (let i = 0; i < 3; i++) await one[k]();
  for (let i = 0; i < run.size.latency; i++) {
    for (const k of kinds) {
      const t = performance.now();
      await one[k]();
      lat[k].push(performance.now() - t);
    }
  }
  return { samples: run.size.latency, p: (k, q) => quantile(lat[k], q), one, shipped };
}

export function reportLatency(report: Report, l: Latency): void {
  const { p } = l;
  const p50 = p('baton', 0.5) / p('bare', 0.5);
  const p99 = p('baton', 0.99) / p('bare', 0.99);
  report.push(
    `## Latency of one delegation (agent completes at once; ${l.samples} each, sequential)`,
    '',
    'Baton and the bare workflow each on a worker process of its own, as they are deployed (`baton worker`, and the bare workflow on the SDK with the same workflow cache of 100); the client and the agents run in the benchmark process. The last three rows: both on a worker inside the benchmark process, beside the client and the agents, as earlier runs measured them.',
    '',
    '| | p50 | p99 |',
    '|---|---|---|',
  );
  report.row(['direct `@a2a-js/sdk` SendMessage (blocking)', ms(p('direct', 0.5)), ms(p('direct', 0.99))]);
  report.row(['bare workflow, one activity making that call', ms(p('bare', 0.5)), ms(p('bare', 0.99))]);
  report.row(['Baton delegation (resolve, send, accept)', ms(p('baton', 0.5)), ms(p('baton', 0.99))]);
  report.row(['Baton ÷ bare workflow', `${p50.toFixed(2)}× ${mark(p50 <= 1.1)}`, `${p99.toFixed(2)}× ${mark(p99 <= 1.3)}`]);
  report.row(['Baton ÷ direct call', ratio(p('baton', 0.5), p('direct', 0.5)), ratio(p('baton', 0.99), p('direct', 0.99))]);
  report.row(['in one process: bare workflow', ms(p('bareOneProcess', 0.5)), ms(p('bareOneProcess', 0.99))]);
  report.row(['in one process: Baton delegation', ms(p('batonOneProcess', 0.5)), ms(p('batonOneProcess', 0.99))]);
  report.row([
    'in one process: Baton ÷ bare workflow',
    ratio(p('batonOneProcess', 0.5), p('bareOneProcess', 0.5)),
    ratio(p('batonOneProcess', 0.99), p('bareOneProcess', 0.99)),
  ]);
}
