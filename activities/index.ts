/**
 * Baton's activities, built with their dependencies injected. Each module holds one concern; remote
 * terminal states are returned as data, and only infrastructure faults are thrown.
 */
import { acceptanceActivities } from './acceptance';
import { agentActivities } from './agents';
import { cancelActivities } from './cancel';
import { activityContext, type ActivityDeps } from './context';
import { observeActivities } from './observe';
import { sendActivities } from './send';

export type { ActivityDeps } from './context';

export function createActivities(deps: ActivityDeps) {
  const ctx = activityContext(deps);
  return {
    ...agentActivities(ctx),
    ...sendActivities(ctx),
    ...observeActivities(ctx),
    ...cancelActivities(ctx),
    ...acceptanceActivities(ctx),
  };
}

export type BatonActivities = ReturnType<typeof createActivities>;
