/**
 * The campaign on the real cluster (`npm run chaos -- --cluster`): Baton as production runs it
 * (test/cluster/cluster-stack.ts), then worker processes SIGKILLed with delegations in flight, and
 * every cluster service (then the whole cluster) restarted under load with streams open
 * (test/cluster/restarts.ts). Writes the "On the real cluster" section of docs/RELIABILITY.md; the
 * cluster tier (`npm run test:cluster`) runs the short form.
 */
import type { CliProcess } from '../../infra/cli-process';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { API_TOKEN, startClusterStack, type ClusterStack } from '../cluster/cluster-stack';
import { restartTable, restartUnderLoad, type RestartReport } from '../cluster/restarts';
import { kill } from '../helpers/worker-process';
import { objectStoreLinkRuns } from '../cluster/object-store-link';
import type { CrashRunReport } from './kill-campaign';
import { wireScenarios, type WireOptions, type WireReport } from './wire-faults';

export const CLUSTER_HEADING = '## On the real cluster';

export interface ClusterCampaignOptions {
  killRuns: number;
  perRun: number;
  /** The wire faults on the worker's link to the object store (MinIO, built with the cluster's tools). */
  wire: WireOptions & { downMs: number };
  /** How many times every service is restarted (each time, then the whole cluster). */
  rounds: number;
  command: string;
}

const settleWithin = async (stack: ClusterStack, id: string, ms: number): Promise<DelegationRecord | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([stack.baton.result(id), late]);
  } finally {
    clearTimeout(timer);
  }
};

/** One run: `perRun` delegations to the fault agent, the oldest worker SIGKILLed, another started. */
async function clusterKillRun(
  stack: ClusterStack,
  workers: CliProcess[],
  run: number,
  perRun: number,
  random: () => number,
): Promise<CrashRunReport> {
  const started = Date.now();
  const before = stack.chaos.duplicateTasks;
  const ids = await Promise.all(
    Array.from({ length: perRun }, () => stack.baton.start({ agent: 'chaos-desk', parts: [{ text: `run ${run}` }] })),
  );
  const killedAfterMs = Math.round(200 + random() * 2_300);
  await new Promise((r) => setTimeout(r, killedAfterMs));
  await kill(workers.shift() as CliProcess);
  workers.push(await stack.startWorker());
  const records = await Promise.all(ids.map((id) => settleWithin(stack, id, 180_000)));
  return {
    run,
    delegations: perRun,
    killedAfterMs,
    lost: records.filter((r) => !r).length,
    duplicates: stack.chaos.duplicateTasks - before,
    wrongOutcomes: records.filter((r) => r && r.outcome?.kind !== 'ACCEPTED').length,
    tookMs: Date.now() - started,
  };
}

/** Runs the campaign; resolves with the section's lines. */
export async function clusterCampaign(
  opts: ClusterCampaignOptions,
  say: (line: string) => void,
): Promise<{ lines: string[]; bad: number }> {
  const began = Date.now();
  const stack = await startClusterStack((l) => say(`  cluster: ${l}`));
  const kills: CrashRunReport[] = [];
  const restarts: RestartReport[] = [];
  try {
    const workers = stack.processes.slice(0, 2);
    let seed = 20261205;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let run = 1; run <= opts.killRuns; run++) {
      const r = await clusterKillRun(stack, workers, run, opts.perRun, random);
      kills.push(r);
      say(`  SIGKILL run ${run}/${opts.killRuns}: lost ${r.lost}, duplicates ${r.duplicates}, wrong ${r.wrongOutcomes}, ${r.tookMs} ms`);
    }
    const deps = { ...stack, token: API_TOKEN };
    for (let round = 1; round <= opts.rounds; round++) {
      for (const [target, restart] of [
        ['frontend', () => stack.cluster.restart('frontend')],
        ['matching', () => stack.cluster.restart('matching')],
        ['history', () => stack.cluster.restart('history')],
        ['worker service', () => stack.cluster.restart('worker')],
        ['PostgreSQL', () => stack.cluster.restartPostgres()],
        ['the whole cluster', () => stack.cluster.restartAll()],
      ] as const) {
        const r = await restartUnderLoad(deps, target, restart);
        restarts.push(r);
        say(
          `  ${target} restarted (round ${round}): back after ${r.restartMs} ms, all settled ${r.settleMs} ms later, duplicates ${r.duplicates}, wrong ${r.wrongOutcomes}`,
        );
      }
    }
  } finally {
    await stack.stop();
  }
  say('faults on the wire to the object store…');
  const wire: WireReport[] = await objectStoreLinkRuns(wireScenarios(opts.wire.downMs), opts.wire, (l) => say(`  minio: ${l}`));
  for (const r of wire)
    say(`  ${r.scenario}: lost ${r.lost}, duplicates ${r.duplicates}, wrong ${r.wrongOutcomes}, settled ${r.settleMs} ms after it cleared`);
  const sum = (k: 'lost' | 'duplicates' | 'wrongOutcomes'): number => kills.reduce((n, r) => n + r[k], 0);
  const bad =
    sum('lost') +
    sum('duplicates') +
    sum('wrongOutcomes') +
    restarts.reduce((n, r) => n + r.duplicates + r.wrongOutcomes, 0) +
    wire.reduce((n, r) => n + r.lost + r.duplicates + r.wrongOutcomes, 0);
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const slowest = Math.max(0, ...kills.map((r) => r.tookMs));
  const lines = [
    CLUSTER_HEADING,
    '',
    `The same zeros on Baton as production runs it: the Temporal server built from the Go module proxy with PostgreSQL, each service a process of its own, mTLS and the JWT authorizer; two \`baton worker\` processes, \`baton webhook\` and \`baton ui\` with a served gateway. Measured on ${new Date().toISOString().slice(0, 10)} with \`${opts.command}\` (${Math.round((Date.now() - began) / 60_000)} min); the cluster tier (\`npm run test:cluster\`) runs one round of restarts and one SIGKILL run.`,
    '',
    `**Worker SIGKILLs.** ${opts.killRuns} runs of ${opts.perRun} delegations to the fault agent (drops after task creation 15%, 5xx bursts 5%), the oldest worker SIGKILLed 0.2 to 2.5 s in and another started: ${kills.reduce((n, r) => n + r.delegations, 0)} delegations, lost ${sum('lost')}, duplicate remote tasks ${sum('duplicates')}, wrong outcomes ${sum('wrongOutcomes')}; the slowest run took ${(slowest / 1000).toFixed(1)} s from start to all settled.`,
    '',
    '**Every service restarted under load.** Each row: three delegations to the fault agent, one to a slow agent (8 s) followed by the API\'s record stream and by `baton watch`, the four-node trip graph, and a served task followed by an A2A stream, all in flight; then the service (or PostgreSQL, or all of them and PostgreSQL at once) stopped and started again. "Back after" is until the cluster answered again; a lost delegation would never settle (the run would not end). Every stream went on to the right end (the record stream in order, settled ACCEPTED; `baton watch` exit 0; the A2A stream COMPLETED) with no state out of order.',
    '',
    ...restartTable(restarts),
    '',
    `**Faults on the wire to the object store.** Toxiproxy between the worker and MinIO (the worker's \`artifacts.s3.endpoint\` on the proxy), each fault on both directions; an agent that streams a 200 KB artifact per task, stored by reference, so every delegation uploads. ${Math.ceil(opts.wire.perRun / 2)} delegations before the fault, ${opts.wire.perRun - Math.ceil(opts.wire.perRun / 2)} during it, the fault on for ${seconds(opts.wire.holdMs)} (the link down for ${seconds(opts.wire.downMs)}); every artifact was then found whole in the store.`,
    '',
    '| Scenario | Delegations | Lost | Duplicate remote tasks | Wrong outcomes | Fault lasted | Last settled after it cleared |',
    '|---|---|---|---|---|---|---|',
    ...wire.map(
      (r) =>
        `| ${r.scenario} | ${r.delegations} | ${r.lost} | ${r.duplicates} | ${r.wrongOutcomes} | ${seconds(r.faultMs)} | ${seconds(r.settleMs)} |`,
    ),
    '',
  ];
  return { lines, bad };
}
