/**
 * Which paths through Baton's workflows a recorded history walked, read from the history itself: the
 * recorder uses it to choose the corpus, and the replay test to prove the corpus still covers every
 * path (so a re-recording that loses one fails, instead of quietly testing less).
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const EventType = temporal.api.enums.v1.EventType;

/** The paths the corpus must cover (issue #24), each named as the replay test reports it. */
export const REQUIRED_PATHS = [
  'completes-at-once',
  'direct-reply',
  'input-round',
  'auth',
  'review-accepted',
  'review-rejected',
  'push',
  'poll',
  'stream',
  'stream-cut',
  'cancel',
  'cancel-race',
  'parent-cancel',
  'deadline',
  'budget-exhausted',
  'remote-failed',
  'remote-rejected',
  'worker-crash',
  'first-task-lost',
  'graph',
  'graph-follow-up',
  'graph-cancel',
  'embedded-signal',
  'continue-as-new',
  'continued',
  'sparse-poll',
  'graph-continue-as-new',
  'graph-continued',
  'graph-backstop',
  'task-push',
  'task-push-undelivered',
] as const;
export type ReplayPath = (typeof REQUIRED_PATHS)[number];

interface RecordShape {
  outcome?: { kind: string; reasons: string[] };
  agent?: { observe?: string };
  reply?: unknown;
  cancel?: unknown;
  remoteCalls?: number;
}

function decode<T>(payloads: temporal.api.common.v1.IPayloads | null | undefined, index = 0): T | undefined {
  const payload = payloads?.payloads?.[index];
  return payload ? (defaultPayloadConverter.fromPayload(payload) as T) : undefined;
}

/** The workflow type a history belongs to (from its first event). */
export function workflowTypeOf(history: History): string {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? 'unknown';
}

/** The paths `history` walked; empty for a workflow that is not Baton's. */
export function pathsOf(history: History): ReplayPath[] {
  const events = history.events ?? [];
  const type = workflowTypeOf(history);
  const paths = new Set<ReplayPath>();
  const updates = events.flatMap((e) => {
    const accepted = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    return accepted ? [{ name: accepted.name ?? '', arg: decode<Record<string, unknown>>(accepted.args) }] : [];
  });
  const signals = events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
  const scheduled = new Map(
    events.flatMap((e) => {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [[String(e.eventId), name] as const] : [];
    }),
  );
  const activities = [...scheduled.values()];
  const observations = events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    return done && scheduled.get(String(done.scheduledEventId)) === 'awaitRemoteTask' ? [decode<{ calls?: number }>(done.result)] : [];
  });
  const completed = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  if (type === 'taskPushWorkflow') {
    // A served task's webhooks: notifications delivered, and some given up on after their retries.
    if (activities.includes('deliverPush')) paths.add('task-push');
    const failed = events.some((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
    if (failed) paths.add('task-push-undelivered');
    return [...paths];
  }
  const crashed = events.some(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT ||
      e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT ||
      (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
  );
  if (crashed) paths.add('worker-crash');
  // The first workflow task was lost with its worker (since 0.9.0 it holds the first send): the next
  // one runs the workflow from its start again.
  const firstDone = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  const firstLost = events.findIndex(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT || e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  );
  if (firstLost >= 0 && (firstDone < 0 || firstLost < firstDone)) paths.add('first-task-lost');
  if (events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED)) paths.add('parent-cancel');

  if (type === 'taskGraphWorkflow') {
    paths.add('graph');
    if (updates.some((u) => u.name === 'addFollowUp')) paths.add('graph-follow-up');
    if (updates.some((u) => u.name === 'cancelGraph')) paths.add('graph-cancel');
    // A large graph's run that continued as new with nodes running, and one that went on from another.
    if (events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes) paths.add('graph-continue-as-new');
    if (events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId) paths.add('graph-continued');
    // A continued run asked the server about nodes an earlier run started.
    if (events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'endedDelegations')) paths.add('graph-backstop');
    return [...paths];
  }
  if (type !== 'delegationWorkflow') return [];

  const record = decode<RecordShape>(completed?.workflowExecutionCompletedEventAttributes?.result);
  const outcome = record?.outcome?.kind;
  const named = (name: string) => updates.filter((u) => u.name === name);
  if (named('answer').length) paths.add('input-round');
  if (named('authorize').length) paths.add('auth');
  if (named('review').some((u) => u.arg?.decision === 'accept')) paths.add('review-accepted');
  if (named('review').some((u) => u.arg?.decision === 'reject')) paths.add('review-rejected');
  if (named('cancel').length) {
    // The race: the remote task ended before the cancel reached it, and the record says so.
    const raced = record?.outcome?.reasons.some((r) => r.includes('before the cancel reached it'));
    paths.add(raced ? 'cancel-race' : 'cancel');
  }
  if (signals.includes('batonPush')) paths.add('push');
  if (signals.includes('answerSignal') || signals.includes('authorizeSignal')) paths.add('embedded-signal');
  const observed = activities.filter((a) => a === 'awaitRemoteTask').length;
  if (record?.agent?.observe === 'poll' && observed) paths.add('poll');
  if (record?.agent?.observe === 'stream' && observed) {
    // A stream that dropped: the observing activity read the task after the cut and subscribed anew
    // (one subscription and the closing GetTask make 2 calls).
    paths.add(observations.some((o) => (o?.calls ?? 0) >= 3) ? 'stream-cut' : 'stream');
  }
  // A run that continued as new (its patch marker and the command), and one that went on from another.
  if (events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes) paths.add('continue-as-new');
  if (events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId) paths.add('continued');
  if (activities.includes('readSparsely')) paths.add('sparse-poll');
  if (record?.reply) paths.add('direct-reply');
  if (outcome === 'ACCEPTED' && !updates.length && !signals.length && !observed && !record?.reply) paths.add('completes-at-once');
  if (outcome === 'TIMED_OUT') paths.add('deadline');
  if (record?.outcome?.reasons.some((r) => r.includes('budget'))) paths.add('budget-exhausted');
  if (outcome === 'REMOTE_FAILED') paths.add('remote-failed');
  if (outcome === 'REMOTE_REJECTED') paths.add('remote-rejected');
  return [...paths];
}
