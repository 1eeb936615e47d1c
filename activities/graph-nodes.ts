/**
 * A graph's nodes, seen from the worker: their delegations started as workflows of their own, in
 * batches (decision 0042), and the backstop for the nodes the graph has not heard from: it hears how
 * they end only from their `batonSettled` Signal, which a delegation terminated by hand (or timed out
 * by the server) never sends.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { brokenResult, resultOf, settledNotice, type DelegationResult } from '../src/shared/delegation-result';
import type { DelegationRecord } from '../src/shared/delegation-types';
import type { NodeStarts, NodeStartsResult } from '../src/shared/graph-types';
import { mapAtMost } from '../src/shared/map-at-most';
import { startingAttributes } from '../src/shared/search-attributes';
import type { ActivityContext } from './context';

/** How a workflow can have ended (a run that continued as new goes on in the next). */
const CLOSED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT']);

/** Delegations described at once: a graph carries at most its concurrency (1,000) of them. */
const AT_ONCE = 10;

/** Delegations started at once by one batch. */
const STARTS_AT_ONCE = 20;

export function graphNodeActivities(ctx: ActivityContext) {
  return {
    /**
     * Starts each node's delegation as a workflow of its own. Idempotent by workflow id: a retried
     * batch finds the ones it started already, running or ended (known by their summary), and starts
     * each node at most once. A workflow under a node's id that this graph did not start is refused.
     */
    async startNodes(batch: NodeStarts): Promise<NodeStartsResult> {
      const { client } = Context.current();
      const refused: NodeStartsResult['refused'] = [];
      await mapAtMost(STARTS_AT_ONCE, batch.nodes, async ({ delegationId, input }) => {
        const summary = `Node of graph ${batch.graphId}, to ${input.agent}`;
        try {
          await client.workflow.start('delegationWorkflow', {
            workflowId: delegationId,
            taskQueue: batch.taskQueue,
            args: [input],
            typedSearchAttributes: startingAttributes(input),
            staticSummary: summary,
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
          });
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
          const found = await client.workflow.getHandle(delegationId).describe();
          if (found.type !== 'delegationWorkflow' || (await found.staticSummary()) !== summary)
            refused.push({ delegationId, reason: `a workflow with its id (${delegationId}) exists already, not started by this graph` });
        }
      });
      return { refused };
    },

    /**
     * Signals `batonSettled` to the graph (its current run) for a node's delegation that has ended: a
     * local activity, so no workflow task of the delegation waits for the Signal (decision 0042). A
     * retried one signals again, which the graph ignores for a node it has settled. A graph that is no
     * longer running is reported, not retried.
     */
    async tellSettled(req: { graphId: string; notice: DelegationResult }): Promise<{ missed?: string }> {
      const { client } = Context.current();
      try {
        await client.workflow.getHandle(req.graphId).signal('batonSettled', req.notice);
        return {};
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { missed: `workflow ${req.graphId} is not running` };
        throw err;
      }
    },

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
