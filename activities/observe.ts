/**
 * Activities that follow a remote task while it is active: one long activity (stream or polls), or,
 * in push mode, a registration and one read per push or backstop tick.
 */
import { activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { failure } from '../src/a2a/errors';
import { pushToken } from '../src/push/token';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import type { ActivityContext, TaskInput } from './context';
import { withDownloads } from './downloads';
import { getObservedTask, isNews, type ObserveInput } from './observe-input';
import { MAX_POLL_FAILURES, pollUntilNews } from './poll';
import { followStream } from './stream';

export function observeActivities(ctx: ActivityContext) {
  const { agents, deps } = ctx;
  return {
    /**
     * Follows the task by stream or polls until it leaves its active state (with news), or until
     * `callBudget` calls were made; heartbeats throughout, so a dead worker is noticed and a cancel gets through.
     */
    async awaitRemoteTask(input: ObserveInput): Promise<RemoteSnapshot> {
      const log = ctx.logFor(input);
      const client = await agents.clientFor(input.agent);
      const follow = input.agent.observe === 'stream' ? followStream : pollUntilNews;
      return withDownloads(ctx, input.agent.name, await follow(ctx, client, input, log), log);
    },

    /**
     * Asks the agent to push the task's events to the webhook, with a token only this delegation and
     * task can use. The token is computed here from the worker's secret and never enters history.
     */
    async registerPush(input: TaskInput): Promise<{ url: string; calls: number }> {
      const push = deps.config.push;
      if (!push) throw failure(FailureType.CONFIG_INVALID, 'push is not configured on this worker (config push.url, push.secretFromEnv)');
      const secret = process.env[push.secretFromEnv];
      if (!secret) throw failure(FailureType.CONFIG_INVALID, `push: environment variable ${push.secretFromEnv} is not set on this worker`);
      const url = `${push.url.replace(/\/$/, '')}/push/${encodeURIComponent(input.delegationId)}`;
      const client = await agents.clientFor(input.agent);
      await client.createPushConfig(input.taskId, url, pushToken(secret, input.delegationId, input.taskId), cancellationSignal());
      ctx.logFor(input).info({ url }, 'push registered');
      return { url, calls: 1 };
    },

    /**
     * A task that works for long, read once per attempt: while it is still active with no news the
     * attempt fails as benign, and Temporal tries again after `sparsePoll.every`, holding no slot in
     * between and adding nothing to history. News, or the call budget spent, completes it. Each
     * attempt is one call; passing faults are ridden out as in a poll, then the read fails for good.
     */
    async readSparsely(input: ObserveInput): Promise<RemoteSnapshot> {
      const { attempt, heartbeatDetails } = activityInfo();
      const failures = (heartbeatDetails as { failures?: number } | undefined)?.failures ?? 0;
      const log = ctx.logFor(input);
      const client = await agents.clientFor(input.agent);
      let task: Awaited<ReturnType<typeof client.getTask>>;
      try {
        task = await getObservedTask(client, input);
      } catch (err) {
        const f = err as ApplicationFailure;
        if (f.type !== FailureType.RETRY_LATER || cancellationSignal().aborted) throw err;
        // 👉 Heartbeat details outlive the attempt: the next one knows how many reads failed in a row.
        heartbeat({ failures: failures + 1 });
        if (failures + 1 < MAX_POLL_FAILURES) throw err;
        throw ApplicationFailure.create({
          type: f.type,
          message: `${f.message} (${failures + 1} reads failed in a row)`,
          nonRetryable: true,
        });
      }
      const snapshot = { ...(await ctx.snapshot(task)), calls: attempt };
      const over =
        (input.callBudget !== undefined && attempt >= input.callBudget) || (input.readUntil !== undefined && Date.now() >= input.readUntil);
      if (isNews(snapshot, input.staleStatusKey) || over) {
        log.info({ state: task.status.state, via: 'sparse poll', reads: attempt }, 'remote state');
        return withDownloads(ctx, input.agent.name, snapshot, log);
      }
      if (failures) heartbeat({ failures: 0 });
      // Benign: logged at debug by the SDK and left out of its failure metrics; this is the wait itself.
      throw ApplicationFailure.create({
        type: FailureType.REMOTE_TASK_ACTIVE,
        message: `remote task still ${task.status.state}`,
        category: ApplicationFailureCategory.BENIGN,
      });
    },

    /** One GetTask: what a push (a hint) or the backstop timer asks for. */
    async readTask(input: TaskInput): Promise<RemoteSnapshot> {
      const log = ctx.logFor(input);
      const client = await agents.clientFor(input.agent);
      const task = await getObservedTask(client, input);
      log.info({ state: task.status.state, via: 'push' }, 'remote state');
      return withDownloads(ctx, input.agent.name, { ...(await ctx.snapshot(task)), calls: 1 }, log);
    },
  };
}
