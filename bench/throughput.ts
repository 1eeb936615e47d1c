/**
 * Throughput at several concurrencies, Baton and the bare workflow in the same run, on the worker
 * processes the latency measurement started, in rounds in the order bare, Baton, Baton, bare: what
 * one leaves behind on the server (its visibility writes, for one) falls on both alike.
 */
import type { Latency } from './latency';
import { mark, say, secondsFor, type BenchRun, type Report } from './runner';

export const ROUNDS = 4;

export type Throughput = { level: number; baton: number; bare: number }[];

export async function measureThroughput(run: BenchRun, latency: Latency): Promise<Throughput> {
  say('throughput…');
  const tput: Throughput = [];
  for (const level of run.size.levels) {
    const perRound = Math.max(level * 2, Math.ceil((level === 1 ? 20 : run.size.total) / ROUNDS));
    const seconds = { bare: 0, baton: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of r % 2 === 0 ? (['bare', 'baton'] as const) : (['baton', 'bare'] as const)) {
        seconds[kind] += await secondsFor(latency.one[kind], level, perRound);
      }
    }
    tput.push({ level, bare: (perRound * ROUNDS) / seconds.bare, baton: (perRound * ROUNDS) / seconds.baton });
    say(`  concurrency ${level}: baton ${tput.at(-1)?.baton.toFixed(1)}/s, bare ${tput.at(-1)?.bare.toFixed(1)}/s`);
  }
  return tput;
}

export function reportThroughput(report: Report, tput: Throughput): void {
  report.push(
    '',
    `## Throughput (delegations per second, same run; the worker processes above, ${ROUNDS} rounds each, alternating)`,
    '',
    '| Concurrency | Baton | Bare workflow | Baton ÷ bare |',
    '|---|---|---|---|',
  );
  for (const t of tput)
    report.row([t.level, t.baton.toFixed(1), t.bare.toFixed(1), `${(t.baton / t.bare).toFixed(2)} ${mark(t.baton / t.bare >= 0.9)}`]);
}
