/**
 * Observation by polling: GetTask with growing pauses until there is news. Polls and heartbeats add
 * nothing to history.
 */
import { activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import type { AgentClient } from '../src/a2a/agent-client';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { FailureType } from '../src/shared/failure-types';
import { Backoff } from './backoff';
import type { ActivityContext } from './context';
import { getObservedTask, handOffTime, isNews, type ObserveInput } from './observe-input';

/** Consecutive failed polls ridden out inside one observation before the activity itself fails (and is retried). */
export const MAX_POLL_FAILURES = 6;

/** GetTask until the task leaves its active state (with news), or until `callBudget` calls were made. */
export async function pollUntilNews(ctx: ActivityContext, client: AgentClient, input: ObserveInput, log: Logger): Promise<RemoteSnapshot> {
  const backoff = new Backoff(ctx.poll);
  const handOffAt = handOffTime(input);
  let calls = 0;
  let lastState = (activityInfo().heartbeatDetails as { state?: string } | undefined)?.state;
  let failures = 0;
  for (;;) {
    let task: Awaited<ReturnType<AgentClient['getTask']>>;
    calls += 1;
    try {
      task = await getObservedTask(client, input);
      failures = 0;
    } catch (err) {
      // A passing fault (5xx, 429, a dropped connection) during a long wait is ridden out here, at the
      // poll's own pace: failing the activity would spend one of its few attempts on each blip.
      const f = err as ApplicationFailure;
      if (f.type !== FailureType.RETRY_LATER || cancellationSignal().aborted || ++failures >= MAX_POLL_FAILURES) throw err;
      log.warn({ err: f.message, failures }, 'poll failed; polling on');
      await backoff.pause({ state: lastState }, Number(f.nextRetryDelay ?? 0) || 0);
      continue;
    }
    if (task.status.state !== lastState) {
      log.info({ state: task.status.state }, 'remote state');
      lastState = task.status.state;
    }
    heartbeat({ state: task.status.state });
    const snapshot = { ...(await ctx.snapshot(task)), calls };
    if (isNews(snapshot, input.staleStatusKey)) return snapshot;
    if (input.callBudget !== undefined && calls >= input.callBudget) return snapshot;
    // Working for long: the slot goes back, and the workflow reads the task sparsely from now on.
    if (handOffAt !== undefined && Date.now() >= handOffAt) return snapshot;
    await backoff.pause({ state: task.status.state });
  }
}
