/**
 * One cluster service (or the whole cluster) restarted with work in flight: delegations to the fault
 * agent, a delegation to a slow agent followed by the API's record stream and by `baton watch`, a task
 * graph, and a served task followed by an A2A stream. Counts what was lost, duplicated or ended wrong,
 * and checks that each stream went on to the right end without showing a state out of order.
 */
import assert from 'node:assert/strict';
import { Message, StreamResponse, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { FaultAgent } from '../../infra/fault-agent';
import { CliProcess } from '../../infra/cli-process';
import type { BatonClient } from '../../src/client/baton-client';
import type { GraphClient } from '../../src/client/graph-client';
import { TRIP_TO_HELSINKI } from '../../src/demo/graph-specs';
import { readEvents } from '../helpers/sse';

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

const ORDER = ['SUBMITTED', 'REMOTE_ACTIVE', 'SETTLING', 'SETTLED'];
const SERVED_STATES = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);

/** A served task's states over a JSON-RPC stream, from the first event to the stream's end. */
async function servedStream(d: RestartDeps, text: string): Promise<{ first: Promise<void>; states: Promise<string[]> }> {
  const client = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }),
  ).createFromUrl(`${d.uiUrl}/a2a/slow-gateway/`);
  const request: SendMessageRequest = {
    tenant: '',
    message: Message.fromJSON({ messageId: `restart-${text}`, role: 'ROLE_USER', parts: [{ text }], taskId: '', contextId: '' }),
    configuration: { acceptedOutputModes: [], returnImmediately: false, historyLength: 0, taskPushNotificationConfig: undefined },
    metadata: undefined,
  };
  let seen: () => void = () => {};
  const first = new Promise<void>((r) => (seen = r));
  const states = (async () => {
    const out: string[] = [];
    for await (const event of client.sendMessageStream(request, { serviceParameters: { Authorization: `Bearer ${d.token}` } })) {
      const json = StreamResponse.toJSON(event) as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } };
      const state = json.task?.status.state ?? json.statusUpdate?.status.state;
      if (state) out.push(state);
      seen();
    }
    return out;
  })();
  return { first, states };
}

export async function restartUnderLoad(d: RestartDeps, target: string, restart: () => Promise<void>): Promise<RestartReport> {
  const duplicatesBefore = d.chaos.duplicateTasks;
  const ids = await Promise.all([0, 1, 2].map((i) => d.baton.start({ agent: 'chaos-desk', parts: [{ text: `${target} ${i}` }] })));
  const slowId = await d.baton.start({ agent: 'slow-desk', parts: [{ text: `${target}: take your time` }] });
  const graphId = await d.graphs.start(TRIP_TO_HELSINKI);
  await Promise.all([...ids, slowId].map((id) => d.baton.until(id, (r) => r.status === 'REMOTE_ACTIVE' || r.outcome !== undefined, 100)));
  const record = readEvents(`${d.uiUrl}/api/v1/delegations/${encodeURIComponent(slowId)}/events`, d.token);
  const watcher = new CliProcess(['watch', slowId], d.env);
  const served = await servedStream(d, `${target}: served, take your time`);
  await Promise.all([watcher.waitFor(slowId, 'stderr'), served.first]);

  const began = Date.now();
  await restart();
  const back = Date.now();

  const records = await Promise.all([...ids, slowId].map((id) => d.baton.result(id)));
  const graph = await d.graphs.until(graphId, (g) => g.status === 'SETTLED', 200);
  const [events, states, watched] = await Promise.all([record, served.states, watcher.exited]);
  const settled = Date.now();

  // The record stream: stages in order, an outcome only at its end, and the end ACCEPTED.
  const statuses = events.filter((e) => e.event === 'status').map((e) => e.data as { status: string; outcome?: unknown });
  const stages = statuses.map((s) => ORDER.indexOf(s.status));
  assert.ok(
    stages.every((x, i) => x >= 0 && (i === 0 || x >= (stages[i - 1] as number))),
    `${target}: record stream in order: ${statuses.map((s) => s.status)}`,
  );
  assert.ok(
    statuses.slice(0, -1).every((s) => !s.outcome),
    `${target}: an outcome only at the end`,
  );
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
