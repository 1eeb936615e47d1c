/**
 * The sink delegations report their counters through (types only: the workflow calls it, the worker
 * implements it in src/telemetry/workflow-metrics.ts). Recorded outside the sandbox, the counters
 * carry snake_case labels that join with Temporal's own series (`namespace`, `task_queue`), where
 * the workflow metric meter would add `taskQueue` and `workflowType`.
 */
import type { Sinks } from '@temporalio/workflow';

export interface BatonMetricSinks extends Sinks {
  batonMetrics: {
    delegationStarted(agent: string): void;
    delegationSettled(agent: string, outcome: string): void;
  };
}
