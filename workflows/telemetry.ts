/**
 * What a delegation tells operators as it starts and settles: a counter each (by agent; by agent and
 * outcome), through the workflow's metric meter, which says nothing while a history is replayed; and
 * the delegation's attributes on its workflow span when the worker traces (the span the
 * OpenTelemetry interceptors opened; no span, nothing to do). Neither adds a command to history.
 */
import { trace } from '@opentelemetry/api';
import { metricMeter, workflowInfo } from '@temporalio/workflow';
import type { OutcomeKind } from '../src/shared/delegation-types';

export function delegationStarted(agent: string): void {
  metricMeter.createCounter('baton_delegations_started', '', 'Delegations started, by agent').add(1, { agent });
  trace.getActiveSpan()?.setAttributes({ 'baton.delegation_id': workflowInfo().workflowId, 'baton.agent': agent });
}

export function delegationSettled(agent: string, outcome: OutcomeKind | undefined, remoteTaskId: string | undefined): void {
  metricMeter
    .createCounter('baton_delegations_settled', '', 'Delegations settled, by agent and outcome')
    .add(1, { agent, outcome: outcome ?? 'NONE' });
  trace.getActiveSpan()?.setAttributes({
    'baton.outcome': outcome ?? 'NONE',
    ...(remoteTaskId ? { 'a2a.task_id': remoteTaskId } : {}),
  });
}
