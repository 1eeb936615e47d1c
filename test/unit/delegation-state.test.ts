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
  reconcile: 'list-tasks',
  contract: { maxInputRounds: 10 },
  observe: 'poll',
};
const snap = (state: RemoteSnapshot['state'], at: string, extra: Partial<RemoteSnapshot> = {}): RemoteSnapshot => ({
  taskId: 't1',
  contextId: 'c1',
  state,
  observedAt: at,
  artifacts: [],
  ...extra,
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
    assert.deepEqual(
      s.record.remote.history.map((h) => h.state),
      ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
    );
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

describe('DelegationState: pending requests, access and cancel', () => {
  const caller = { tenant: 'acme', user: 'ops-2' };
  const asked = (at: string, messageId = 'q1') =>
    snap('TASK_STATE_INPUT_REQUIRED', at, { remoteTimestamp: at, statusMessageId: messageId, statusParts: [{ text: 'Serial number?' }] });

  it('opens a request with a deterministic id, and validates answers against it', () => {
    const s = new DelegationState('d1', input);
    assert.equal(s.observed(asked('t1')).kind, 'interrupted');
    assert.equal(s.record.pending?.requestId, 'd1/request-1');
    assert.equal(s.status, 'WAITING_INPUT');
    assert.equal(s.refuseAnswer('input', 'd1/request-1', caller), undefined);
    assert.match(s.refuseAnswer('input', 'd1/request-0', caller) ?? '', /not the pending one/);
    assert.match(s.refuseAnswer('auth', 'd1/request-1', caller) ?? '', /use answer/);
    assert.match(s.refuseAnswer('input', 'd1/request-1', { tenant: 'globex', user: 'x' }) ?? '', /no access/);
    s.queue({ requestId: 'd1/request-1', kind: 'input', parts: [{ text: 'SN-1' }] });
    assert.match(s.refuseAnswer('input', 'd1/request-1', caller) ?? '', /already answered/);
  });

  it('treats the answered question seen again as stale, and a new question as new', () => {
    const s = new DelegationState('d1', input);
    s.observed(asked('t1'));
    s.answered('d1/request-1', 'd1/turn-2', 't2');
    assert.equal(s.sentAs('d1/request-1'), 'd1/turn-2');
    assert.equal(s.observed(asked('t1')).kind, 'observe', 'the same status again is not a new question');
    assert.equal(s.status, 'REMOTE_ACTIVE');
    assert.equal(s.observed(asked('t3', 'q2')).kind, 'interrupted');
    assert.equal(s.record.pending?.requestId, 'd1/request-2');
  });

  it('records what the remote really did when cancelled', () => {
    const s = new DelegationState('d1', input);
    s.observed(snap('TASK_STATE_WORKING', 't1'));
    assert.equal(s.requestCancel('acme/ops-1', 'order withdrawn'), true);
    assert.equal(s.requestCancel('acme/ops-1', 'again'), false);
    const outcome = s.cancelled('CANCELED', snap('TASK_STATE_COMPLETED', 't2'));
    assert.deepEqual(outcome, {
      kind: 'CANCELED',
      reasons: ['order withdrawn', 'remote task ended COMPLETED before the cancel reached it; its result is not accepted'],
    });
    assert.equal(s.record.remote.state, 'TASK_STATE_COMPLETED');
    assert.equal(s.status, 'SETTLED');
  });
  it('keeps refused signals from untrusted payloads, copying only well-typed fields, the latest 50', () => {
    const s = new DelegationState('d1', input);
    assert.deepEqual(s.refusedSignal('answer', null, 'invalid answer'), { signal: 'answer', reason: 'invalid answer' });
    assert.deepEqual(s.refusedSignal('authorize', { requestId: 7, caller: { tenant: 'acme', user: { x: 1 } } }, 'bad'), {
      signal: 'authorize',
      reason: 'bad',
      by: 'acme/?',
    });
    assert.equal(s.refusedSignal('answer', { requestId: 'r'.repeat(1000) }, 'long').requestId?.length, 300);
    for (let i = 0; i < 60; i += 1) s.refusedSignal('answer', { requestId: `d1/request-${i}` }, 'stale');
    assert.equal(s.record.refusedSignals.length, 50);
    assert.equal(s.record.refusedSignals[0]?.requestId, 'd1/request-10');
    assert.equal(s.status, 'STARTING', 'a refused signal changes no state');
  });
});
