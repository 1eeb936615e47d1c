import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypedSearchAttributes } from '@temporalio/common';
import { DelegationState } from '../../src/shared/delegation-state';
import { changedAttributes, SA_PENDING_REQUEST, searchAttributesOf, startingAttributes } from '../../src/shared/search-attributes';

const input = { agent: 'supplier-qa', parts: [{ text: 'verify' }], tenant: 'acme', owner: 'ops-1' };
const shown = (s: DelegationState) => Object.fromEntries(searchAttributesOf(s.record).map((p) => [p.key.name, p.value]));

describe('search attributes of a delegation', () => {
  it('show status, agent and tenant, the remote task once known, and clear the pending request', () => {
    const s = new DelegationState('d1', input);
    assert.deepEqual(shown(s), { BatonStatus: 'STARTING', BatonAgent: 'supplier-qa', BatonTenant: 'acme', BatonPendingRequest: null });
    s.observed({ taskId: 't1', contextId: 'c1', state: 'TASK_STATE_INPUT_REQUIRED', observedAt: 'now', artifacts: [] });
    assert.deepEqual(shown(s), {
      BatonStatus: 'WAITING_INPUT',
      BatonAgent: 'supplier-qa',
      BatonTenant: 'acme',
      BatonRemoteTaskId: 't1',
      BatonRemoteState: 'TASK_STATE_INPUT_REQUIRED',
      BatonPendingRequest: 'd1/request-1',
    });
    s.settle({ kind: 'CANCELED', reasons: [] });
    assert.equal(shown(s).BatonOutcome, 'CANCELED');
  });
});

describe('the attributes a publish writes', () => {
  const names = (pairs: ReturnType<typeof changedAttributes>) => pairs.map((p) => `${p.key.name}=${String(p.value)}`);

  it('are those that change what the workflow has: not the agent and tenant it started with', () => {
    const s = new DelegationState('d1', input);
    const started = new TypedSearchAttributes(startingAttributes(input));
    s.observed({ taskId: 't1', contextId: 'c1', state: 'TASK_STATE_INPUT_REQUIRED', observedAt: 'now', artifacts: [] });
    assert.deepEqual(names(changedAttributes(searchAttributesOf(s.record), started)), [
      'BatonStatus=WAITING_INPUT',
      'BatonRemoteTaskId=t1',
      'BatonRemoteState=TASK_STATE_INPUT_REQUIRED',
      'BatonPendingRequest=d1/request-1',
    ]);
  });

  it('remove a pending request only when one is there, and are never empty', () => {
    const s = new DelegationState('d1', input);
    const pairs = searchAttributesOf(s.record);
    const same = new TypedSearchAttributes(startingAttributes(input));
    assert.deepEqual(names(changedAttributes(pairs, same)), ['BatonStatus=STARTING'], 'nothing changed: the status alone');
    const pending = same.updateCopy([{ key: SA_PENDING_REQUEST, value: 'd1/request-1' }]);
    assert.deepEqual(names(changedAttributes(pairs, pending)), ['BatonPendingRequest=null']);
  });
});
