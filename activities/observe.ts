/**
 * Activities that follow a remote task while it is active: one long activity (stream or polls), or,
 * in push mode, a registration and one read per push or backstop tick.
 */
import { activityInfo, cancellationSignal, CompleteAsyncError, Context, heartbeat } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common';
import { failure } from '../src/a2a/errors';
import { pushToken } from '../src/push/token';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import { heldReadsWithin } from '../src/shared/sparse-attempt';
import type { ActivityContext, TaskInput } from './context';
import { withDownloads } from './downloads';
import { getObservedTask, type ObserveInput } from './observe-input';
import { pollUntilNews } from './poll';
import { readOnce, stillActive, type SparseProgress, type SparseReads } from './sparse-reads';
import { followStream } from './stream';

export function observeActivities(ctx: ActivityContext, sparse: SparseReads) {
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
     * A task that works for long, read sparsely: the attempt reads it once; with no news it is held by
     * this worker, which reads it every `sparsePoll.every` and completes the attempt on news, or ends it
     * as benign after its held reads so that Temporal starts the next one (decision 0041). No slot is
     * held between reads and nothing is added to history. An attempt scheduled by an older workflow
     * (a 30 s timeout) holds none and reads once, as before. Passing faults are ridden out as in a
     * poll, then the read fails for good.
     */
    async readSparsely(input: ObserveInput): Promise<RemoteSnapshot> {
      const info = activityInfo();
      const prior = info.heartbeatDetails as Partial<SparseProgress> | undefined;
      // Details outlive the attempt: reads so far and failed reads in a row.
      const progress: SparseProgress = { reads: prior?.reads ?? info.attempt - 1, failures: prior?.failures ?? 0 };
      const log = ctx.logFor(input);
      const everyMs = msToNumber(input.agent.sparsePoll?.every ?? '1m');
      const spanMs = input.agent.sparsePoll?.attemptSpan === undefined ? undefined : msToNumber(input.agent.sparsePoll.attemptSpan);
      const held = input.callBudget === undefined ? heldReadsWithin(everyMs, info.startToCloseTimeoutMs, spanMs) : 0;
      let verdict: Awaited<ReturnType<typeof readOnce>>;
      try {
        verdict = await readOnce(ctx, input, progress, cancellationSignal(), log);
      } catch (err) {
        if (progress.failures !== (prior?.failures ?? 0))
          heartbeat(prior?.reads === undefined ? { failures: progress.failures } : progress);
        throw err;
      }
      if (verdict.done) return verdict.done;
      if (held > 0) {
        const { client } = Context.current();
        const workflowId = info.workflowExecution?.workflowId;
        // A copy: the token is a view into the whole task the worker decoded, which it would keep alive.
        const token = Uint8Array.from(info.taskToken);
        sparse.hold({ token, client, input, everyMs, left: held, progress, workflowId, log });
        throw new CompleteAsyncError();
      }
      // An attempt that only ever reads once keeps only its failures in the details, as it always did.
      if (prior?.reads !== undefined) heartbeat(progress);
      else if (progress.failures !== (prior?.failures ?? 0)) heartbeat({ failures: progress.failures });
      // Benign: logged at debug by the SDK and left out of its failure metrics; this is the wait itself.
      throw stillActive(verdict.state);
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
