/**
 * What a delegation tells operators as it starts and settles: a counter each (by agent; by agent and
 * outcome), through the workflow's metric meter, which says nothing while a history is replayed and
 * adds no command. (Its span's attributes are set by the traced bundle's interceptors.)
 */
import { metricMeter } from '@temporalio/workflow';
import type { OutcomeKind } from '../src/shared/delegation-types';

export function delegationStarted(agent: string): void {
  metricMeter.createCounter('baton_delegations_started', '', 'Delegations started, by agent').add(1, { agent });
}

export function delegationSettled(agent: string, outcome: OutcomeKind | undefined): void {
  metricMeter
    .createCounter('baton_delegations_settled', '', 'Delegations settled, by agent and outcome')
    .add(1, { agent, outcome: outcome ?? 'NONE' });
}
