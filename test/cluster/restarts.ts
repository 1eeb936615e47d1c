/**
 * One cluster service (or the whole cluster) restarted with work in flight: delegations to the fault
 * agent, a delegation to a slow agent followed by the API's record stream and by `baton watch`, a task
 * graph, and a served task followed by an A2A stream. Counts what was lost, duplicated or ended wrong,
 * and checks that each stream went on to the right end without showing a state out of order.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FaultAgent } from '../../infra/fault-agent';
import { CliProcess } from '../../infra/cli-process';
import type { BatonClient } from '../../src/client/baton-client';
import type { GraphClient } from '../../src/client/graph-client';
import { TRIP_TO_HELSINKI } from '../../src/demo/graph-specs';
import { servedStreamStates } from '../helpers/served';
import { checkRecordStream, readEvents } from '../helpers/sse';

export interface RestartDeps {
  baton: BatonClient;
  graphs: GraphClient;
  /** The fault agent (`chaos-desk`), which counts duplicate tasks. */
  chaos: FaultAgent;
  /** The environment Baton's processes run with (config, certificates, token). */
  env: NodeJS.ProcessEnv;
  uiUrl: string;
  token: string;
}

export interface RestartReport {
  target: string;
  /** Delegations in flight, graph nodes included, and the served task. */
  inFlight: number;
  duplicates: number;
  wrongOutcomes: number;
  /** From the restart's start until the cluster answered again. */
  restartMs: number;
  /** From then until the last delegation, node, served task and stream had ended. */
  settleMs: number;
  /** Whether a stream said it was waiting for Temporal (the record stream or `baton watch`). */
  streamsWaited: boolean;
}

const SERVED_STATES = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);

export async function restartUnderLoad(d: RestartDeps, target: string, restart: () => Promise<void>): Promise<RestartReport> {
  const duplicatesBefore = d.chaos.duplicateTasks;
  const ids = await Promise.all([0, 1, 2].map((i) => d.baton.start({ agent: 'chaos-desk', parts: [{ text: `${target} ${i}` }] })));
  const slowId = await d.baton.start({ agent: 'slow-desk', parts: [{ text: `${target}: take your time` }] });
  const graphId = await d.graphs.start(TRIP_TO_HELSINKI);
  await Promise.all([...ids, slowId].map((id) => d.baton.until(id, (r) => r.status === 'REMOTE_ACTIVE' || r.outcome !== undefined, 100)));
  const record = readEvents(`${d.uiUrl}/api/v1/delegations/${encodeURIComponent(slowId)}/events`, d.token);
  const watcher = new CliProcess(['watch', slowId], d.env);
  const served = await servedStreamStates(
    `${d.uiUrl}/a2a/slow-gateway/`,
    d.token,
    `restart-${randomUUID()}`,
    `${target}: served, take your time`,
  );
  await Promise.all([watcher.waitFor(slowId, 'stderr'), served.first]);

  const began = Date.now();
  await restart();
  const back = Date.now();

  const records = await Promise.all([...ids, slowId].map((id) => d.baton.result(id)));
  const graph = await d.graphs.until(graphId, (g) => g.status === 'SETTLED', 200);
  const [events, states, watched] = await Promise.all([record, served.states, watcher.exited]);
  const settled = Date.now();

  // The record stream: stages in order, an outcome only at its end, and the end ACCEPTED.
  checkRecordStream(events, `${target}: record stream`);
  const end = events.at(-1) as { event: string; data: { outcome?: { kind: string } } } | undefined;
  assert.equal(end?.event, 'settled', `${target}: the record stream ended settled: ${events.map((e) => e.event)}`);
  assert.equal(end?.data.outcome?.kind, 'ACCEPTED');
  // baton watch: to the end, exit 0; the served stream: only states the task was in, to COMPLETED.
  assert.equal(watched.code, 0, `${target}: baton watch: ${watcher.stderr}`);
  assert.match(watcher.stdout, /ACCEPTED/);
  assert.ok(
    states.every((s) => SERVED_STATES.has(s)),
    `${target}: served states ${states}`,
  );

  return {
    target,
    inFlight: records.length + graph.nodes.length + 1,
    duplicates: d.chaos.duplicateTasks - duplicatesBefore,
    wrongOutcomes:
      records.filter((r) => r.outcome?.kind !== 'ACCEPTED').length +
      graph.nodes.filter((n) => n.outcome !== 'ACCEPTED').length +
      (states.at(-1) === 'TASK_STATE_COMPLETED' ? 0 : 1),
    restartMs: back - began,
    settleMs: settled - back,
    streamsWaited: events.some((e) => e.event === 'unavailable') || /still watching/.test(watcher.stderr),
  };
}

/** The reports as the table docs/RELIABILITY.md gives. */
export function restartTable(reports: RestartReport[]): string[] {
  return [
    '| Restarted | In flight | Lost | Duplicate remote tasks | Wrong outcomes | Back after | All settled after that | A stream said it waited |',
    '|---|---|---|---|---|---|---|---|',
    ...reports.map(
      (r) =>
        `| ${r.target} | ${r.inFlight} | 0 | ${r.duplicates} | ${r.wrongOutcomes} | ${(r.restartMs / 1000).toFixed(1)} s | ${(r.settleMs / 1000).toFixed(1)} s | ${r.streamsWaited ? 'yes' : 'no'} |`,
    ),
  ];
}
