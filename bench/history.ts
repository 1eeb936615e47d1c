/**
 * History per delegation (simple, with an input round, the bare workflow for comparison), and how a
 * delegation's history grows while it polls a slow agent: sampled each minute while the other
 * measurements run, until the poll's time is up.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { billableActions } from './billable-actions';
import { bareCallWorkflow } from './workflows';
import { mark, say, type BenchRun, type Report } from './runner';

export interface HistorySizes {
  simple: WorkflowExecutionDescription;
  bare: WorkflowExecutionDescription;
  asked: WorkflowExecutionDescription;
  /** Billable actions in each one's history (bench/billable-actions.ts). */
  actions: { simple: number; bare: number; asked: number };
}

export async function measureHistory(run: BenchRun): Promise<HistorySizes> {
  say('history…');
  const { baton, client } = run;
  const describe = (id: string) => client.workflow.getHandle(id).describe();
  const simple = await baton.start({ agent: 'instant', parts: [{ text: 'book it' }] });
  await baton.result(simple);
  const bareId = `bare-${randomUUID()}`;
  await client.workflow.execute(bareCallWorkflow, {
    taskQueue: run.taskQueue,
    workflowId: bareId,
    args: [{ baseUrl: run.agents.instant.agent.url, text: 'book it', messageId: randomUUID() }],
  });
  const asked = await baton.start({ agent: 'supplier-qa', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
  const waiting = await baton.until(asked, (r) => r.pending !== null, 50);
  await baton.answer(asked, waiting.pending?.requestId ?? '', [{ text: 'SN-4471' }]);
  await baton.result(asked);
  const actions = async (id: string) => billableActions(await client.workflow.getHandle(id).fetchHistory());
  return {
    simple: await describe(simple),
    bare: await describe(bareId),
    asked: await describe(asked),
    actions: { simple: await actions(simple), bare: await actions(bareId), asked: await actions(asked) },
  };
}

export type PollSample = { minute: number; events: number; bytes: number; calls: number };

/** Starts a delegation that polls the slow agent; `finish` waits out its time and cancels it. */
export async function watchPolling(run: BenchRun): Promise<{ finish(): Promise<PollSample[]> }> {
  const { baton, client } = run;
  const poller = await baton.start({ agent: 'slow', parts: [{ text: 'take your time' }] });
  await baton.until(poller, (r) => r.status === 'REMOTE_ACTIVE', 50);
  const pollStart = Date.now();
  const samples: PollSample[] = [];
  const sample = async (minute: number): Promise<void> => {
    const d = await client.workflow.getHandle(poller).describe();
    samples.push({ minute, events: d.historyLength, bytes: d.historySize ?? 0, calls: run.agents.slow.calls() });
  };
  await sample(0);
  const sampler = setInterval(() => void sample(Math.round((Date.now() - pollStart) / 60_000)), 60_000);
  return {
    finish: async () => {
      const left = pollStart + run.size.pollMinutes * 60_000 - Date.now();
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      clearInterval(sampler);
      await sample(Math.round((Date.now() - pollStart) / 60_000));
      // It may have ended by itself if the run took hours; the samples are what matter.
      await baton.cancel(poller, 'benchmark done').catch(() => undefined);
      return samples;
    },
  };
}

export function reportHistory(report: Report, h: HistorySizes, samples: PollSample[], pollMinutes: number): void {
  report.push(
    '',
    '## History per delegation',
    '',
    'Billable actions as Temporal Cloud counts them from history (bench/billable-actions.ts: the start, activity attempts, the local activities of one workflow task as one, timers, signals, accepted updates, search-attribute upserts except the one of a patch (`TemporalChangeVersion`), which Temporal Cloud exempts; heartbeats and queries leave no event).',
    '',
    '| Delegation | Events | Bytes | Billable actions |',
    '|---|---|---|---|',
  );
  report.row(['bare workflow (one activity), for comparison', h.bare.historyLength, h.bare.historySize ?? 0, h.actions.bare]);
  report.row(['simple (completes at once)', h.simple.historyLength, h.simple.historySize ?? 0, h.actions.simple]);
  report.row(['with one input-required round', h.asked.historyLength, h.asked.historySize ?? 0, h.actions.asked]);
  report.row([
    'per input-required round (difference)',
    h.asked.historyLength - h.simple.historyLength,
    (h.asked.historySize ?? 0) - (h.simple.historySize ?? 0),
    h.actions.asked - h.actions.simple,
  ]);
  const first = samples[0];
  const last = samples.at(-1);
  report.push(
    '',
    `While a delegation polls a slow agent for ${pollMinutes} minute(s) (GetTask every 5 s at most):`,
    '',
    '| Minute | History events | History bytes | GetTask calls so far |',
    '|---|---|---|---|',
  );
  for (const s of samples) report.row([s.minute, s.events, s.bytes, s.calls]);
  report.push(
    '',
    `Growth over the poll: ${(last?.events ?? 0) - (first?.events ?? 0)} events, ${(last?.bytes ?? 0) - (first?.bytes ?? 0)} bytes ${mark((last?.events ?? 0) === (first?.events ?? 0))} (flat is the target).`,
  );
}
