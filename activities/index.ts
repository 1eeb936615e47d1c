/**
 * Baton's activities, built with their dependencies injected. Each module holds one concern; remote
 * terminal states are returned as data, and only infrastructure faults are thrown.
 */
import { acceptanceActivities } from './acceptance';
import { agentActivities } from './agents';
import { cancelActivities } from './cancel';
import { atTheBoundary } from './boundary';
import { activityContext, type ActivityDeps } from './context';
import { graphNodeActivities } from './graph-nodes';
import { mcpToolActivities } from './mcp-tools';
import { observeActivities } from './observe';
import { sendActivities } from './send';
import { SparseReads } from './sparse-reads';
import { taskPushActivities } from './task-push';

export type { ActivityDeps } from './context';

/** The sparse reads each set of activities holds, to hand back when its worker stops. */
const heldBy = new WeakMap<object, SparseReads>();

export function createActivities(deps: ActivityDeps) {
  const ctx = activityContext(deps);
  const sparse = new SparseReads(ctx, deps.config.worker?.sparseReadConcurrency);
  const activities = atTheBoundary(ctx, {
    ...agentActivities(ctx),
    ...sendActivities(ctx),
    ...observeActivities(ctx, sparse),
    ...cancelActivities(ctx),
    ...acceptanceActivities(ctx),
    ...graphNodeActivities(ctx),
    ...taskPushActivities(ctx),
    ...mcpToolActivities(ctx),
  });
  heldBy.set(activities, sparse);
  return activities;
}

/**
 * A worker plugin that hands the sparse reads these activities hold back to Temporal once the worker
 * stopped (decision 0041): each attempt's next one runs on any worker `every` later, rather than
 * after the attempt's timeout.
 */
export function sparseReadsPlugin(activities: object) {
  return {
    name: 'baton-sparse-reads',
    async runWorker<W>(worker: W, next: (w: W) => Promise<void>): Promise<void> {
      try {
        await next(worker);
      } finally {
        await heldBy.get(activities)?.handBack();
      }
    },
  };
}

export type BatonActivities = ReturnType<typeof createActivities>;
