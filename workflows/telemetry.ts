/**
 * What a delegation tells operators as it starts and settles: a counter each (by agent; by agent and
 * outcome), through the `batonMetrics` sink, which the worker records outside the sandbox with
 * snake_case labels (src/telemetry/workflow-metrics.ts); a sink call adds no command and is not made
 * while a history is replayed. (Its span's attributes are set by the traced bundle's interceptors.)
 */
import { proxySinks } from '@temporalio/workflow';
import type { BatonMetricSinks } from '../src/shared/metric-sinks';
import type { OutcomeKind } from '../src/shared/delegation-types';

const { batonMetrics } = proxySinks<BatonMetricSinks>();

export function delegationStarted(agent: string): void {
  batonMetrics.delegationStarted(agent);
}

export function delegationSettled(agent: string, outcome: OutcomeKind | undefined): void {
  batonMetrics.delegationSettled(agent, outcome ?? 'NONE');
}
