import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DelegationState } from '../../src/shared/delegation-state';
import type { RemoteSnapshot, ResolvedAgent } from '../../src/shared/delegation-types';
import { turnMessageId } from '../../src/shared/ids';

const input = { agent: 'supplier-qa', parts: [{ text: 'verify' }], tenant: 'acme', owner: 'ops-1' };
const agent: ResolvedAgent = {
  name: 'supplier-qa',
  cardUrl: 'http://127.0.0.1:1/.well-known/agent-card.json',
  cardSha256: 'ab'.repeat(32),
  cardName: 'supplier-qa',
  interface: { url: 'http://127.0.0.1:1/a2a/jsonrpc', binding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
  capabilities: { streaming: false, pushNotifications: false },
  defaultPolicy: 'completed-with-artifact',
};
const snap = (state: RemoteSnapshot['state'], at: string, extra: Partial<RemoteSnapshot> = {}): RemoteSnapshot => ({
  taskId: 't1', contextId: 'c1', state, observedAt: at, artifacts: [], ...extra,
});

describe('DelegationState', () => {
  it('uses the agent policy unless the delegation names one', () => {
    assert.equal(new DelegationState('d1', input).resolved(agent), 'completed-with-artifact');
    assert.equal(new DelegationState('d1', { ...input, policy: 'accept-any' }).resolved(agent), 'accept-any');
  });

  it('records each state change once, and asks for acceptance on COMPLETED', () => {
    const s = new DelegationState('d1', input);
    assert.equal(s.observed(snap('TASK_STATE_SUBMITTED', 't0')).kind, 'observe');
    assert.equal(s.observed(snap('TASK_STATE_WORKING', 't1')).kind, 'observe');
    assert.equal(s.observed(snap('TASK_STATE_WORKING', 't2')).kind, 'observe');
    assert.equal(s.status, 'REMOTE_ACTIVE');
    assert.equal(s.observed(snap('TASK_STATE_COMPLETED', 't3')).kind, 'accept');
    assert.deepEqual(s.record.remote.history.map((h) => h.state), ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    assert.equal(s.record.outcome, undefined, 'COMPLETED alone is not an outcome');
    s.decided(false, ['verdict does not match']);
    assert.deepEqual(s.record.outcome, { kind: 'REJECTED', reasons: ['verdict does not match'] });
    assert.equal(s.status, 'SETTLED');
  });

  it('ends on FAILED with the agent text kept', () => {
    const s = new DelegationState('d1', input);
    const next = s.observed(snap('TASK_STATE_FAILED', 't1', { statusText: 'out of stock' }));
    assert.equal(next.kind, 'end');
    if (next.kind === 'end') assert.deepEqual(next.outcome.reasons, ['remote task FAILED', 'agent said: out of stock']);
  });

  it('stops at input-required', () => {
    assert.equal(new DelegationState('d1', input).observed(snap('TASK_STATE_INPUT_REQUIRED', 't1')).kind, 'interrupted');
  });

  it('names turns deterministically from the delegation id', () => {
    assert.equal(turnMessageId('dlg-1', 1), 'dlg-1/turn-1');
    assert.equal(turnMessageId('dlg-1', 1), turnMessageId('dlg-1', 1));
    assert.throws(() => turnMessageId('dlg-1', 0), RangeError);
  });
});
