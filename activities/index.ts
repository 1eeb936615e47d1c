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
import type { Redactor } from '../src/secrets/redactor';

export type { ActivityDeps } from './context';

export function createActivities(deps: ActivityDeps) {
  const ctx = activityContext(deps);
  return redacting(ctx.redactor, {
    ...agentActivities(ctx),
    ...sendActivities(ctx),
    ...observeActivities(ctx),
    ...cancelActivities(ctx),
    ...acceptanceActivities(ctx),
  });
}

/**
 * The activities with their one boundary to history: what each returns or throws passes the
 * redactor, so a configured secret an agent echoes never reaches the workflow.
 */
function redacting<T extends Record<string, (input: never) => Promise<unknown>>>(redactor: Redactor, activities: T): T {
  const guarded = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: never) => {
      try {
        return redactor.value(await activity(input)).value;
      } catch (err) {
        throw redactor.failure(err);
      }
    },
  ]);
  return Object.fromEntries(guarded) as T;
}

export type BatonActivities = ReturnType<typeof createActivities>;
