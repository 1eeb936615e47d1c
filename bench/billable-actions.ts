/**
 * Billable actions in one workflow run's history, as Temporal Cloud counts them (docs.temporal.io,
 * "Temporal Cloud Actions"): the start, each activity attempt, the local activities of one workflow
 * task together, timers, signals received or sent, accepted updates, search-attribute upserts except
 * the SDK's own `TemporalChangeVersion` upsert for a patch (exempt, as are the attributes given at the
 * start), a child workflow's start (two: its intent and its execution), a Nexus operation scheduled or
 * cancelled, and a change of the run's options. Heartbeats and queries count too but leave no event:
 * a history cannot show them.
 */
import { temporal } from '@temporalio/proto';

const T = temporal.api.enums.v1.EventType;

/** Actions per event of these types. */
const PER_EVENT = new Map<number, number>([
  [T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 1],
  [T.EVENT_TYPE_TIMER_STARTED, 1],
  [T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, 1],
  [T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, 1],
  [T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, 1],
  [T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, 2],
  [T.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED, 1],
  [T.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED, 1],
  [T.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED, 1],
]);

/** The attribute the SDK upserts for a patch: Temporal Cloud does not count that upsert. */
const CHANGE_VERSION = 'TemporalChangeVersion';

const upsertCounts = (e: temporal.api.history.v1.IHistoryEvent): boolean => {
  const names = Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
  return names.length === 0 || names.some((n) => n !== CHANGE_VERSION);
};

export function billableActions(history: temporal.api.history.v1.IHistory): number {
  let actions = 0;
  let localThisTask = false;
  for (const e of history.events ?? []) {
    const type = e.eventType ?? 0;
    const each = PER_EVENT.get(type);
    if (each) actions += each;
    else if (type === T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) actions += upsertCounts(e) ? 1 : 0;
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
