/**
 * Billable actions in one workflow run's history, as Temporal Cloud counts them (docs.temporal.io,
 * "Temporal Cloud Actions"): the start, each activity attempt, the local activities of one workflow
 * task together, timers, signals received or sent, accepted updates, search-attribute upserts (the
 * SDK's own `TemporalChangeVersion` upsert for a patch included) and child workflow starts.
 * Heartbeats and queries count too but leave no event: a history cannot show them.
 */
import { temporal } from '@temporalio/proto';

const T = temporal.api.enums.v1.EventType;

/** One action per event of these types. */
const ONE_EACH = new Set<number>([
  T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
  T.EVENT_TYPE_TIMER_STARTED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
]);

export function billableActions(history: temporal.api.history.v1.IHistory): number {
  let actions = 0;
  let localThisTask = false;
  for (const e of history.events ?? []) {
    const type = e.eventType ?? 0;
    if (ONE_EACH.has(type)) actions += 1;
    // Each attempt is an action; the started event carries the attempt it is.
    else if (type === T.EVENT_TYPE_ACTIVITY_TASK_STARTED) actions += e.activityTaskStartedEventAttributes?.attempt ?? 1;
    else if (type === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) localThisTask = false;
    else if (type === T.EVENT_TYPE_MARKER_RECORDED && e.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
      if (!localThisTask) actions += 1;
      localThisTask = true;
    }
  }
  return actions;
}
