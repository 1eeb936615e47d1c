import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { billableActions } from '../../bench/billable-actions';

const T = temporal.api.enums.v1.EventType;
const ev = (eventType: number, extra: Partial<temporal.api.history.v1.IHistoryEvent> = {}) => ({ eventType, ...extra });
const marker = (markerName: string) => ev(T.EVENT_TYPE_MARKER_RECORDED, { markerRecordedEventAttributes: { markerName } });
const upsert = (...names: string[]) =>
  ev(T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
    upsertWorkflowSearchAttributesEventAttributes: { searchAttributes: { indexedFields: Object.fromEntries(names.map((n) => [n, {}])) } },
  });
const task = [T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, T.EVENT_TYPE_WORKFLOW_TASK_STARTED, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED].map((t) =>
  ev(t),
);

describe('billable actions in a history', () => {
  it("count the start, each activity attempt, upserts but a patch's, and the local activities of one workflow task once", () => {
    const history = {
      events: [
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
        ...task,
        marker('core_patch'),
        upsert('TemporalChangeVersion'),
        marker('core_local_activity'),
        marker('core_local_activity'),
        ev(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
        ev(T.EVENT_TYPE_ACTIVITY_TASK_STARTED, { activityTaskStartedEventAttributes: { attempt: 3 } }),
        ev(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
        ...task,
        marker('core_local_activity'),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
        ev(T.EVENT_TYPE_TIMER_STARTED),
        upsert('BatonStatus', 'BatonOutcome'),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
      ],
    };
    // start 1, the patch's upsert 0, local activities of task 1: 1, activity attempts 3, local of task 2: 1,
    // update 1, timer 1, Baton's upsert 1
    assert.equal(billableActions(history), 9);
  });

  it('count a child workflow twice (its intent and its execution) and a Nexus operation once', () => {
    const history = {
      events: [
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
        ...task,
        ev(T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
        ev(T.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED),
        upsert('TemporalChangeVersion', 'BatonStatus'),
      ],
    };
    // start 1, child 2, Nexus 1, an upsert that writes more than the patch's attribute 1
    assert.equal(billableActions(history), 5);
  });
});
