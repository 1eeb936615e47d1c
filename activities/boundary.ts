/**
 * The activities' one boundary to history: what each returns keeps its inline bytes within the totals
 * (given what the delegation holds inline already, `inlineSoFar` in its input), and what it returns or
 * throws passes the redactor, so a configured secret an agent echoes never reaches the workflow; and
 * the blobs it refers to are indexed under the workflow, for `baton artifacts gc`.
 */
import { activityInfo } from '@temporalio/activity';
import { refsIn } from '../src/artifacts/store';
import type { ActivityContext } from './context';

export function atTheBoundary<T extends Record<string, (input: never) => Promise<unknown>>>(ctx: ActivityContext, activities: T): T {
  const guarded = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: never) => {
      try {
        const inlineSoFar = (input as { inlineSoFar?: number } | undefined)?.inlineSoFar;
        return await forHistory(ctx, await activity(input), inlineSoFar, activityInfo().workflowExecution?.workflowId);
      } catch (err) {
        throw ctx.redactor.failure(err);
      }
    },
  ]);
  return Object.fromEntries(guarded) as T;
}

/**
 * `result` as history may keep it, for workflow `holder`: within the inline totals, redacted, its
 * blobs indexed under the holder. Also what an attempt completed from outside the activity (a held
 * sparse read) passes through.
 */
export async function forHistory<T>(
  ctx: ActivityContext,
  result: T,
  inlineSoFar: number | undefined,
  holder: string | undefined,
): Promise<T> {
  const bounded = ctx.redactor.value(await ctx.withinInlineTotals(result, inlineSoFar)).value as T;
  await indexReferences(ctx, bounded, holder);
  return bounded;
}

/**
 * Notes in the store's reference index that this workflow's history names the blobs `result` refers
 * to. Done before the result is returned: every blob a history names is indexed under it.
 */
async function indexReferences(ctx: ActivityContext, result: unknown, holder: string | undefined): Promise<void> {
  const store = ctx.deps.store;
  if (!store || !holder) return;
  const refs = refsIn(result);
  for (const ref of refs) await store.reference(ref, holder);
}
