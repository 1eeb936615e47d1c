/**
 * A graph's backstop for the nodes an earlier run of it started: it hears how they end only from their
 * `batonSettled` Signal, which a delegation terminated by hand (or timed out by the server) never sends.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { brokenResult, resultOf, settledNotice, type DelegationResult } from '../src/shared/delegation-result';
import type { DelegationRecord } from '../src/shared/delegation-types';
import type { ActivityContext } from './context';

/** How a workflow can have ended (a run that continued as new goes on in the next). */
const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);

/** Delegations described at once: a graph carries at most its concurrency (1,000) of them. */
const AT_ONCE = 10;

export function graphNodeActivities(ctx: ActivityContext) {
  return {
    /**
     * How each of the delegations `ids` ended, for those that have: the notice their Signal carries
     * (read from the result of one that completed), or an ERROR naming how its workflow closed. Running
     * ones are left out.
     */
    async endedDelegations(ids: string[]): Promise<DelegationResult[]> {
      const { client } = Context.current();
      const ended: DelegationResult[] = [];
      let next = 0;
      const one = async (id: string): Promise<DelegationResult | undefined> => {
        const handle = client.workflow.getHandle(id);
        try {
          const status = (await handle.describe()).status.name;
          if (!CLOSED.has(status)) return undefined;
          if (status === 'COMPLETED') return settledNotice(resultOf((await handle.result()) as DelegationRecord));
          const word = status === 'TIMED_OUT' ? 'timed out' : status.toLowerCase();
          return brokenResult(
            id,
            `its delegation workflow was ${word} without saying how it ended`,
            status === 'CANCELLED' ? 'CANCELED' : 'ERROR',
          );
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return brokenResult(id, 'its delegation workflow no longer exists');
          throw err;
        }
      };
      await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, ids.length) }, async () => {
          while (next < ids.length) {
            const found = await one(ids[next++] ?? '');
            if (found) ended.push(found);
          }
        }),
      );
      if (ended.length) ctx.logger.info({ ended: ended.map((r) => r.id) }, 'a graph learned of nodes that ended without telling it');
      return ended;
    },
  };
}
