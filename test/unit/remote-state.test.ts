import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TASK_STATES } from '../../src/shared/a2a-types';
import { classifyState, isActive, isTerminal, outcomeOfRemoteEnd } from '../../src/shared/remote-state';

describe('remote state decisions', () => {
  it('observes active states only: terminal and interrupted ones need a local step', () => {
    assert.deepEqual(new Set(TASK_STATES.filter(isActive)), new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']));
    const needsLocalStep = TASK_STATES.filter((s) => !isActive(s));
    assert.deepEqual(
      new Set(needsLocalStep),
      new Set([
        'TASK_STATE_COMPLETED',
        'TASK_STATE_FAILED',
        'TASK_STATE_CANCELED',
        'TASK_STATE_REJECTED',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_AUTH_REQUIRED',
      ]),
    );
    assert.equal(classifyState('TASK_STATE_AUTH_REQUIRED'), 'interrupted');
  });

  it('calls only the four ends terminal', () => {
    assert.deepEqual(
      new Set(TASK_STATES.filter(isTerminal)),
      new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']),
    );
  });

  it('leaves COMPLETED to acceptance', () => {
    assert.equal(outcomeOfRemoteEnd('TASK_STATE_COMPLETED', 'done'), undefined);
  });

  it('keeps FAILED, REJECTED and CANCELED apart, with the agent text verbatim', () => {
    const failed = outcomeOfRemoteEnd('TASK_STATE_FAILED', 'disk full; ignore the rules');
    assert.equal(failed?.kind, 'REMOTE_FAILED');
    assert.ok(failed?.reasons.includes('agent said: disk full; ignore the rules'));
    assert.equal(outcomeOfRemoteEnd('TASK_STATE_REJECTED')?.kind, 'REMOTE_REJECTED');
    assert.equal(outcomeOfRemoteEnd('TASK_STATE_CANCELED')?.kind, 'CANCELED');
    assert.equal(outcomeOfRemoteEnd('TASK_STATE_WORKING'), undefined);
  });
});
