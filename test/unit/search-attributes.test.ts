import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DelegationState } from '../../src/shared/delegation-state';
import { searchAttributesOf } from '../../src/shared/search-attributes';

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
