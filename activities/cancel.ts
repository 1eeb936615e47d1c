/**
 * Cancelling the remote task, and learning how it really ended.
 */
import { cancellationSignal } from '@temporalio/activity';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import type { ActivityContext, TaskInput } from './context';

export function cancelActivities(ctx: ActivityContext) {
  return {
    /**
     * Requests CancelTask. When the agent says the task cannot be cancelled (it ended first), reads
     * the task: the caller records what really happened.
     */
    async cancelRemoteTask(input: TaskInput): Promise<RemoteSnapshot> {
      const log = ctx.logFor(input);
      const client = await ctx.agents.clientFor(input.agent);
      try {
        const task = await client.cancel(input.taskId, cancellationSignal());
        log.info({ state: task.status.state }, 'remote cancel requested');
        return { ...(await ctx.snapshot(task)), calls: 1 };
      } catch (err) {
        const reason = ((err as { details?: unknown[] }).details?.[0] as { reason?: string } | undefined)?.reason;
        if (reason !== 'TASK_NOT_CANCELABLE') throw err;
        const task = await client.getTask(input.taskId, cancellationSignal());
        log.info({ state: task.status.state }, 'remote task could not be cancelled; recorded its real state');
        return { ...(await ctx.snapshot(task)), calls: 2 };
      }
    },
  };
}
