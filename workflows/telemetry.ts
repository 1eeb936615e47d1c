/**
 * What a delegation tells operators as it starts and settles: a counter each (by agent; by agent and
 * outcome), through the `batonMetrics` sink, which the worker records outside the sandbox with
 * snake_case labels (src/telemetry/workflow-metrics.ts); a sink call adds no command and is not made
 * while a history is replayed. (Its span's attributes are set by the traced bundle's interceptors.)
 */
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { BatonMetricSinks } from '../src/shared/metric-sinks';
import type { OutcomeKind } from '../src/shared/delegation-types';

const { batonMetrics } = proxySinks<BatonMetricSinks>();

// 👉 Not even called while replaying: a replay worker (a test's, or `Worker.runReplayHistories`)
// registers no sink of Baton's, and would log each call as an unregistered sink.
const live = (): boolean => !workflowInfo().unsafe.isReplaying;

export function delegationStarted(agent: string): void {
  if (live()) batonMetrics.delegationStarted(agent);
}

export function delegationSettled(agent: string, outcome: OutcomeKind | undefined): void {
  if (live()) batonMetrics.delegationSettled(agent, outcome ?? 'NONE');
}
