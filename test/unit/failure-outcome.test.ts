import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { isPermanent, outcomeOfFailure } from '../../src/shared/failure-outcome';

const activityFailure = (cause: Error): ActivityFailure =>
  new ActivityFailure('activity failed', 'sendTurn', '3', RetryState.MAXIMUM_ATTEMPTS_REACHED, '', cause);

describe('what a failure means for a delegation', () => {
  it('names a permanent failure by its type', () => {
    const refused = ApplicationFailure.create({ type: 'TrustRefused', message: 'card off origin', nonRetryable: true });
    assert.deepEqual(outcomeOfFailure(activityFailure(refused), 8), { kind: 'ERROR', reasons: ['TrustRefused: card off origin'] });
  });

  it('says how often a retryable failure was tried', () => {
    const later = ApplicationFailure.create({ type: 'RetryLater', message: 'HTTP 503' });
    assert.deepEqual(outcomeOfFailure(activityFailure(later), 8), {
      kind: 'ERROR',
      reasons: ['RetryLater (gave up after 8 attempts): HTTP 503'],
    });
  });

  it('takes a local activity failure as it arrives, unwrapped', () => {
    const unknown = ApplicationFailure.create({ type: 'ConfigInvalid', message: 'unknown agent "x"', nonRetryable: true });
    assert.deepEqual(outcomeOfFailure(unknown, 8), { kind: 'ERROR', reasons: ['ConfigInvalid: unknown agent "x"'] });
  });

  it('names a timeout or other non-application cause', () => {
    const timedOut = activityFailure(new Error('activity StartToClose timeout'));
    assert.deepEqual(outcomeOfFailure(timedOut, 8), { kind: 'ERROR', reasons: ['Error: activity StartToClose timeout'] });
  });

  it('throws cancellation and bugs back: they are not outcomes', () => {
    const cancelled = new CancelledFailure('cancelled');
    assert.throws(
      () => outcomeOfFailure(cancelled, 8),
      (err) => err === cancelled,
    );
    const bug = new TypeError('x is undefined');
    assert.throws(
      () => outcomeOfFailure(bug, 8),
      (err) => err === bug,
    );
  });

  it('tells a failure that trying again cannot help from one it may (the first send in the workflow task)', () => {
    const refused = ApplicationFailure.create({ type: 'TrustRefused', message: 'card off origin' });
    const flagged = ApplicationFailure.create({ type: 'SomethingElse', message: 'no', nonRetryable: true });
    const later = ApplicationFailure.create({ type: 'RetryLater', message: 'HTTP 503' });
    const timedOut = new TimeoutFailure('local activity timed out', undefined, TimeoutType.SCHEDULE_TO_CLOSE);
    assert.deepEqual(
      [refused, activityFailure(refused), flagged, later, activityFailure(later), timedOut, activityFailure(timedOut)].map(isPermanent),
      [true, true, true, false, false, false, false],
    );
  });
});
