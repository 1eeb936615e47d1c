/**
 * Baton's activities, built with their dependencies injected. Each module holds one concern; remote
 * terminal states are returned as data, and only infrastructure faults are thrown.
 */
import { activityInfo } from '@temporalio/activity';
import { refsIn } from '../src/artifacts/store';
import { acceptanceActivities } from './acceptance';
import { agentActivities } from './agents';
import { cancelActivities } from './cancel';
import { activityContext, type ActivityContext, type ActivityDeps } from './context';
import { graphNodeActivities } from './graph-nodes';
import { mcpToolActivities } from './mcp-tools';
import { observeActivities } from './observe';
import { sendActivities } from './send';
import { taskPushActivities } from './task-push';

export type { ActivityDeps } from './context';

export function createActivities(deps: ActivityDeps) {
  const ctx = activityContext(deps);
  return atTheBoundary(ctx, {
    ...agentActivities(ctx),
    ...sendActivities(ctx),
    ...observeActivities(ctx),
    ...cancelActivities(ctx),
    ...acceptanceActivities(ctx),
    ...graphNodeActivities(ctx),
    ...taskPushActivities(ctx),
    ...mcpToolActivities(ctx),
  });
}

/**
 * The activities with their one boundary to history: what each returns keeps its inline bytes within
 * the totals (given what the delegation holds inline already, `inlineSoFar` in its input), and what it
 * returns or throws passes the redactor, so a configured secret an agent echoes never reaches the workflow;
 * and the blobs it refers to are indexed under the workflow, for `baton artifacts gc`.
 */
function atTheBoundary<T extends Record<string, (input: never) => Promise<unknown>>>(ctx: ActivityContext, activities: T): T {
  const guarded = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: never) => {
      try {
        const inlineSoFar = (input as { inlineSoFar?: number } | undefined)?.inlineSoFar;
        const result = ctx.redactor.value(await ctx.withinInlineTotals(await activity(input), inlineSoFar)).value;
        await indexReferences(ctx, result);
        return result;
      } catch (err) {
        throw ctx.redactor.failure(err);
      }
    },
  ]);
  return Object.fromEntries(guarded) as T;
}

/**
 * Notes in the store's reference index that this workflow's history names the blobs `result` refers
 * to. Done before the result is returned: every blob a history names is indexed under it.
 */
async function indexReferences(ctx: ActivityContext, result: unknown): Promise<void> {
  const store = ctx.deps.store;
  if (!store) return;
  const refs = refsIn(result);
  if (!refs.size) return;
  const holder = activityInfo().workflowExecution?.workflowId;
  if (!holder) return;
  for (const ref of refs) await store.reference(ref, holder);
}

export type BatonActivities = ReturnType<typeof createActivities>;
