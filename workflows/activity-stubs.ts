/**
 * How workflows call Baton's activities: timeouts and retries per kind of step.
 */
import { msToNumber } from '@temporalio/common';
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { FIRST_TASK_SEND_MS } from '../src/shared/delegation-state';
import type { BatonActivities } from '../activities';
import { NON_RETRYABLE_FAILURES } from '../src/shared/failure-types';
import { sparseAttemptTimeoutMs } from '../src/shared/sparse-attempt';
import { PUSH_REFUSED } from '../src/shared/task-push-book';
import type { PushDelivery } from '../src/shared/task-push-types';

/** Retryable failures (RetryLater) are tried this often, from 1 s to 30 s apart; the rest never again. */
export const RETRY = {
  initialInterval: '1s',
  maximumInterval: '30s',
  backoffCoefficient: 2,
  maximumAttempts: 8,
  nonRetryableErrorTypes: NON_RETRYABLE_FAILURES,
};

/** One call to the agent: register push, read the task once, cancel it. */
export const quick = proxyActivities<BatonActivities>({ startToCloseTimeout: '30s', retry: RETRY });

// 👉 Resolving the agent (a cached card, usually) and running the acceptance policy are short and
// local to this worker: as local activities they skip the task-queue round trip of a normal one.
export const local = proxyLocalActivities<BatonActivities>({ startToCloseTimeout: '30s', retry: RETRY });

/**
 * 👉 The first send inside the first workflow task. Tried once, and over well before the SDK would
 * heartbeat the workflow task (at 80% of its timeout, 10 s): so a run of it after a lost one is always
 * in a workflow task that follows a failed one, which is how `begin()` knows to look for the turn
 * first. Whatever it could not do, the task-queue send does, looking first too.
 */
export const inFirstTask = proxyLocalActivities<BatonActivities>({
  scheduleToCloseTimeout: FIRST_TASK_SEND_MS,
  retry: { maximumAttempts: 1 },
});

// A send that outlives this is retried (after looking for the turn at the agent): short, so a worker
// that died mid-send is noticed soon.
export const sending = proxyActivities<BatonActivities>({ startToCloseTimeout: '15s', retry: RETRY });

// 👉 The wait on the remote task is one long activity: polls and heartbeats add nothing to history,
// and the heartbeat timeout is how a dead worker is noticed (and how a cancel reaches it).
export const observing = proxyActivities<BatonActivities>({ startToCloseTimeout: '24h', heartbeatTimeout: '10s', retry: RETRY });

/**
 * 👉 A task that works for long is read by attempts that Temporal retries every `every`: each attempt
 * reads it, then the worker holds it for a few more reads (its timeout leaves room for them; decision
 * 0041), with no slot held and no event written between reads. The timeout is not part of replay.
 */
export function sparseReads(every: string, attemptSpan?: string) {
  return proxyActivities<BatonActivities>({
    startToCloseTimeout: sparseAttemptTimeoutMs(msToNumber(every), attemptSpan === undefined ? undefined : msToNumber(attemptSpan)),
    retry: {
      initialInterval: every,
      maximumInterval: every,
      backoffCoefficient: 1,
      maximumAttempts: Infinity,
      nonRetryableErrorTypes: NON_RETRYABLE_FAILURES,
    },
  });
}

/** Registry lookups a graph makes before it starts nodes (and for each follow-up). */
export const checking = proxyLocalActivities<BatonActivities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 5 } });

/**
 * A graph's node telling the graph how it ended (decision 0042): once, and short, inside the workflow
 * task that settles the node; a miss goes as a Signal command instead.
 */
export const telling = proxyLocalActivities<BatonActivities>({ startToCloseTimeout: '3s', retry: { maximumAttempts: 1 } });

/** A graph starting a batch of its nodes' delegations (decision 0042): a few starts, retried as one. */
export const nodeStarting = proxyActivities<BatonActivities>({ startToCloseTimeout: '30s', retry: RETRY });

/** A graph asking the server how nodes an earlier run started have ended (one describe per node). */
export const describing = proxyActivities<BatonActivities>({ startToCloseTimeout: '2m', retry: RETRY });

/** 👉 The watch over a served task for its callers' webhooks: one long activity that reads it until it changes. */
export const watching = proxyActivities<BatonActivities>({ startToCloseTimeout: '15m', heartbeatTimeout: '30s', retry: RETRY });

/**
 * One notification to a caller's webhook, retried `attempts` times with growing pauses (a caller that
 * is down gets it once it is back); a webhook that refuses it for good (4xx) is not asked again.
 */
export function pushing(delivery: PushDelivery) {
  return proxyActivities<BatonActivities>({
    startToCloseTimeout: '30s',
    retry: {
      initialInterval: delivery.initialIntervalMs,
      maximumInterval: delivery.maxIntervalMs,
      backoffCoefficient: 2,
      maximumAttempts: delivery.attempts,
      nonRetryableErrorTypes: [...NON_RETRYABLE_FAILURES, PUSH_REFUSED],
    },
  });
}
