/**
 * The worker's side of the `batonMetrics` sink (src/shared/metric-sinks.ts): each delegation's start
 * and settlement counted on the process's metric meter, labelled from the workflow's info in
 * snake_case. Not called while a history is replayed, so a replay counts nothing twice.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { BatonMetricSinks } from '../shared/metric-sinks';
import { recordDelegationSettled, recordDelegationStarted } from './metrics';

const labelsOf = (info: WorkflowInfo) => ({ namespace: info.namespace, task_queue: info.taskQueue, workflow_type: info.workflowType });

export function batonMetricSinks(): InjectedSinks<BatonMetricSinks> {
  return {
    batonMetrics: {
      delegationStarted: { fn: (info, agent) => recordDelegationStarted({ ...labelsOf(info), agent }), callDuringReplay: false },
      delegationSettled: {
        fn: (info, agent, outcome) => recordDelegationSettled({ ...labelsOf(info), agent, outcome }),
        callDuringReplay: false,
      },
    },
  };
}
