import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { billableActions } from '../../bench/billable-actions';

const T = temporal.api.enums.v1.EventType;
const ev = (eventType: number, extra: Partial<temporal.api.history.v1.IHistoryEvent> = {}) => ({ eventType, ...extra });
const marker = (markerName: string) => ev(T.EVENT_TYPE_MARKER_RECORDED, { markerRecordedEventAttributes: { markerName } });
const task = [T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, T.EVENT_TYPE_WORKFLOW_TASK_STARTED, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED].map((t) =>
  ev(t),
);

describe('billable actions in a history', () => {
  it('count the start, each activity attempt, upserts, and the local activities of one workflow task once', () => {
    const history = {
      events: [
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
        ...task,
        marker('core_patch'),
        ev(T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES),
        marker('core_local_activity'),
        marker('core_local_activity'),
        ev(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
        ev(T.EVENT_TYPE_ACTIVITY_TASK_STARTED, { activityTaskStartedEventAttributes: { attempt: 3 } }),
        ev(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
        ...task,
        marker('core_local_activity'),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
        ev(T.EVENT_TYPE_TIMER_STARTED),
        ev(T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
      ],
    };
    // start 1, upsert 1, local activities of task 1: 1, activity attempts 3, local of task 2: 1, update 1, timer 1
    assert.equal(billableActions(history), 9);
  });
});
