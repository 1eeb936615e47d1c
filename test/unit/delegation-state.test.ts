import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DelegationState, keptTurnParts, saidIn, TURN_PARTS_MAX_BYTES } from '../../src/shared/delegation-state';
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
    const plain = new DelegationState('d1', input);
    plain.resolved({ agent }, 0, 0);
    assert.equal(plain.run.policy, 'completed-with-artifact');
    const named = new DelegationState('d1', { ...input, policy: 'accept-any' });
    named.resolved({ agent }, 0, 0);
    assert.equal(named.run.policy, 'accept-any');
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

  it('keeps what each turn said and the question it answered; an auth turn names its credential, a big one its size', () => {
    const s = new DelegationState('d1', input);
    s.turnSent('d1/turn-1', 't0', input.parts);
    s.observed(asked('t1'));
    s.answered('d1/request-1', 'd1/turn-2', 't2', saidIn({ requestId: 'd1/request-1', kind: 'input', parts: [{ text: 'SN-1' }] }));
    s.observed(asked('t3', 'q2'));
    s.answered('d1/request-2', 'd1/turn-3', 't4', saidIn({ requestId: 'd1/request-2', kind: 'auth', credential: 'erp' }));
    assert.deepEqual(s.record.turns, [
      { messageId: 'd1/turn-1', sentAt: 't0', parts: [{ text: 'verify' }] },
      { messageId: 'd1/turn-2', sentAt: 't2', parts: [{ text: 'SN-1' }], question: [{ text: 'Serial number?' }] },
      { messageId: 'd1/turn-3', sentAt: 't4', parts: [{ data: { credential: 'erp' } }], question: [{ text: 'Serial number?' }] },
    ]);
    const big = [{ text: 'x'.repeat(TURN_PARTS_MAX_BYTES) }];
    assert.match(keptTurnParts(big)[0]?.text ?? '', /^\(1 parts, \d+ bytes as JSON: not kept in the record\)$/);
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
    const outcome = s.cancelled(snap('TASK_STATE_COMPLETED', 't2'));
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

describe('DelegationState: turns, contract, steering payloads', () => {
  const caller = { tenant: 'acme', user: 'ops-2' };
  const asked = (at: string) => snap('TASK_STATE_INPUT_REQUIRED', at, { remoteTimestamp: at, statusMessageId: `q-${at}` });

  it('names each turn after the turns already sent, and counts the card as a call', () => {
    const s = new DelegationState('d1', input);
    s.resolved({ agent: agent }, 0, 0);
    assert.equal(s.record.remoteCalls, 1);
    assert.equal(s.nextMessageId(), 'd1/turn-1');
    s.turnSent(s.nextMessageId(), 't1');
    assert.equal(s.nextMessageId(), 'd1/turn-2');
  });

  it('ends on the call budget only while there is something left to observe', () => {
    const s = new DelegationState('d1', { ...input, contract: { maxRemoteCalls: 3 } });
    s.resolved({ agent: agent }, 0, 0);
    s.countCalls(1);
    assert.equal(s.refuseToGoOn({ kind: 'observe' }), undefined);
    s.countCalls(1);
    assert.equal(s.callBudget, 0);
    assert.equal(s.refuseToGoOn({ kind: 'observe' }), 'remote call budget of 3 used up (contract maxRemoteCalls)');
    assert.equal(s.refuseToGoOn({ kind: 'accept' }), undefined, 'a result in hand needs no more calls');
  });

  it('keeps reads at its own pace out of the call budget, and ends them at maxWait', () => {
    const s = new DelegationState('d1', { ...input, contract: { maxRemoteCalls: 3, maxWait: '30d' } });
    s.resolved({ agent: { ...agent, observe: 'push' } }, 1_000, 1_000);
    s.countPacedReads(10_000);
    assert.equal(s.record.remoteCalls, 10_001, 'the record counts every call');
    assert.equal(s.record.pacedReads, 10_000);
    assert.equal(s.callBudget, 2, 'paced reads leave the budget alone');
    assert.equal(s.refuseToGoOn({ kind: 'observe' }), undefined);
    const day = 86_400_000;
    assert.equal(s.refuseLongerWait({ kind: 'push' }, 1_000 + 30 * day - 1), undefined, 'not before maxWait');
    assert.equal(
      s.refuseLongerWait({ kind: 'push' }, 1_000 + 30 * day),
      'waited 30d for the remote task, still unknown (contract maxWait)',
    );
    assert.equal(s.refuseLongerWait({ kind: 'sparse', every: '1m' }, 1_000 + 31 * day)?.endsWith('(contract maxWait)'), true);
    assert.equal(s.refuseLongerWait({ kind: 'poll' }, 1_000 + 31 * day), undefined, 'dense polls are counted as calls instead');
    s.countCalls(2);
    assert.equal(s.refuseToGoOn({ kind: 'observe' }), 'remote call budget of 3 used up (contract maxRemoteCalls)');
    const carried = s.carryAt('observe');
    assert.ok('carry' in carried);
    const next = DelegationState.resumed(input, JSON.parse(JSON.stringify(carried.carry)));
    assert.equal(next.run.waitUntil, 1_000 + 30 * day, 'maxWait counts from the start across runs');
    assert.equal(next.callBudget, 0);
    const unbounded = new DelegationState('d2', input);
    unbounded.resolved({ agent }, 0, 0);
    assert.equal(unbounded.refuseLongerWait({ kind: 'push' }, 365 * day), undefined, 'no maxWait, no end by time');
  });

  it('waits for a push one backstop at a time, the last one cut to end at maxWait', () => {
    const day = 86_400_000;
    const s = new DelegationState('d1', { ...input, contract: { maxWait: '1d' } });
    s.resolved({ agent: { ...agent, observe: 'push', backstopPoll: '10m' } }, 0, 0);
    assert.equal(s.pushWait(true, 0), 600_000, 'the backstop');
    assert.equal(s.pushWait(true, day - 60_000), 60_000, 'cut to end at maxWait');
    assert.equal(s.pushWait(true, day + 5), 1, 'never less than a millisecond');
    assert.equal(s.pushWait(false, day - 60_000), '10m', 'counted in calls: the backstop as it was');
    const plain = new DelegationState('d2', input);
    plain.resolved({ agent: { ...agent, observe: 'push' } }, 0, 0);
    assert.equal(plain.pushWait(false, 0), '5m', 'the default backstop');
  });

  it('ends when the agent asks once more than the contract allows', () => {
    const s = new DelegationState('d1', { ...input, contract: { maxInputRounds: 1 } });
    s.resolved({ agent: agent }, 0, 0);
    assert.equal(s.refuseToGoOn(s.observed(asked('t1'))), undefined);
    s.answered('d1/request-1', 'd1/turn-2', 't2');
    assert.equal(s.refuseToGoOn(s.observed(asked('t3'))), 'the agent asked for input more than 1 time(s) (contract maxInputRounds)');
  });

  it('admits a well-formed answer for the pending request, and says why it refuses the rest', () => {
    const s = new DelegationState('d1', input);
    s.observed(asked('t1'));
    assert.deepEqual(s.admit('input', { requestId: 'd1/request-1', parts: [{ text: 'SN-1' }], caller }), {
      turn: { requestId: 'd1/request-1', kind: 'input', parts: [{ text: 'SN-1' }], by: 'acme/ops-2' },
    });
    assert.match((s.admit('input', { requestId: 'd1/request-1', parts: [], caller }) as { refused: string }).refused, /^invalid answer: /);
    assert.match(
      (s.admit('input', { requestId: 'd1/request-1', parts: [{ text: 'x' }], caller, extra: 1 }) as { refused: string }).refused,
      /^invalid answer/,
    );
    assert.deepEqual(s.admit('auth', { requestId: 'd1/request-1', credential: 'erp', caller }), {
      refused: 'the pending request is for input: use answer',
    });
    assert.match(
      (s.admit('auth', { requestId: 'd1/request-1', credential: 'NOT_A_NAME', caller }) as { refused: string }).refused,
      /^invalid authorize: must be a credential name/,
    );
  });

  it('admits an authorize only for a credential the agent allows, never a variable of the worker', () => {
    const askAuth = (s: DelegationState): void => void s.observed(snap('TASK_STATE_AUTH_REQUIRED', 't1', { statusMessageId: 'q' }));
    const s = new DelegationState('d1', input);
    s.resolved({ agent: { ...agent, credentials: ['erp'] } }, 0, 0);
    askAuth(s);
    assert.deepEqual(s.record.pending?.credentials, ['erp']);
    assert.deepEqual(s.admit('auth', { requestId: 'd1/request-1', credential: 'erp', caller }), {
      turn: { requestId: 'd1/request-1', kind: 'auth', credential: 'erp', by: 'acme/ops-2' },
    });
    assert.deepEqual(s.admit('auth', { requestId: 'd1/request-1', credential: 'push', caller }), {
      refused: 'credential "push" is not one this delegation may send; agent supplier-qa accepts erp',
    });
    const legacy = { requestId: 'd1/request-1', secretRef: { fromEnv: 'BATON_PUSH_SECRET' }, caller };
    assert.match(
      (s.admit('auth', legacy) as { refused: string }).refused,
      /^authorize names a credential \(credential: <name>\), not a variable of the worker; agent supplier-qa accepts erp$/,
    );
  });

  it('takes one review, from the right tenant, and settles on it with the policy reasons kept', () => {
    const s = new DelegationState('d1', input);
    s.observed(snap('TASK_STATE_COMPLETED', 't1'));
    s.awaitReview(['verdict pass']);
    const review = { requestId: 'd1/request-1', decision: 'accept', caller };
    assert.equal(s.refuseReview(review), undefined);
    assert.match(s.refuseReview({ ...review, caller: { tenant: 'globex', user: 'x' } }) ?? '', /no access/);
    assert.match(s.refuseReview({ ...review, decision: 'maybe' }) ?? '', /^invalid review: /);
    s.reviewGiven({ decision: 'accept', by: 'acme/ops-2', reason: 'photos checked' });
    assert.equal(s.refuseReview(review), 'already reviewed');
    assert.deepEqual(s.decideOnReview(), {
      kind: 'ACCEPTED',
      reasons: ['verdict pass', 'accepted on review by acme/ops-2: photos checked'],
    });
    assert.equal(s.record.pending, null);
  });

  it('refuses a cancel from another tenant or after the end, and keeps the first reason and kind', () => {
    const s = new DelegationState('d1', input);
    assert.match(s.refuseCancel({ caller: { tenant: 'globex', user: 'x' } }) ?? '', /no access/);
    assert.match(s.refuseCancel({ caller, reason: 'r'.repeat(501) }) ?? '', /^invalid cancel: /);
    assert.equal(s.refuseCancel({ caller }), undefined);
    assert.equal(s.requestCancel('deadline', 'deadline of 1s passed', 'TIMED_OUT'), true);
    assert.equal(s.requestCancel('acme/ops-2', 'too late', 'CANCELED'), false);
    assert.deepEqual(s.cancelled(), { kind: 'TIMED_OUT', reasons: ['deadline of 1s passed', 'no remote task had been created'] });
    assert.equal(s.refuseCancel({ caller }), 'the delegation has already settled');
  });

  it('says when the remote cancel could not be requested', () => {
    const s = new DelegationState('d1', input);
    s.observed(snap('TASK_STATE_WORKING', 't1'));
    s.requestCancel('acme/ops-2', 'order withdrawn');
    assert.deepEqual(s.cancelFailed('RetryLater: agent unreachable').reasons, [
      'order withdrawn',
      'remote task still WORKING when last read',
      'remote cancel could not be requested: RetryLater: agent unreachable',
    ]);
  });
});

describe('DelegationState: carried into a new run', () => {
  const caller = { tenant: 'acme', user: 'ops-1' };

  it('goes on with the pending request, the answered ones, the budget and the stale status', () => {
    const s = new DelegationState('d1', { ...input, contract: { maxRemoteCalls: 20 } }, '0.2.1');
    s.resolved({ agent: agent }, 0, 0);
    s.turnSent(s.nextMessageId(), 't0');
    s.observed(snap('TASK_STATE_INPUT_REQUIRED', 't1', { statusText: 'serial?', statusMessageId: 'q1' }));
    const first = s.record.pending?.requestId ?? '';
    const turn = s.admit('input', { requestId: first, parts: [{ text: 'SN-1' }], caller });
    assert.ok('turn' in turn);
    s.queue(turn.turn);
    assert.deepEqual(s.carryAt('interrupted'), { refused: 'an answer is being sent' }, 'not while an answer is on its way');
    s.answered(first, s.nextMessageId(), 't2');
    s.takeQueued();
    s.countCalls(4);
    s.observed(snap('TASK_STATE_INPUT_REQUIRED', 't3', { statusText: 'and the lot?', statusMessageId: 'q2' }));

    const carried = s.carryAt('interrupted');
    assert.ok('carry' in carried);
    const next = DelegationState.resumed(input, JSON.parse(JSON.stringify(carried.carry)));
    assert.deepEqual(next.record, s.record, 'the record goes on as it was');
    assert.equal(next.record.batonVersion, '0.2.1');
    assert.equal(next.record.pending?.requestId, 'd1/request-2');
    assert.equal(next.sentAs(first), 'd1/turn-2', 'an answered request still says what it went out as');
    assert.equal(next.nextMessageId(), 'd1/turn-3', 'turns are numbered on');
    assert.equal(next.callBudget, s.callBudget, 'and the call budget is what was left');
    assert.equal(next.refuseAnswer('input', first, caller), `request ${first} is not the pending one (d1/request-2)`);
    assert.equal(next.refuseAnswer('input', 'd1/request-2', caller), undefined, 'the pending request is answerable');
    assert.equal(next.staleStatusKey, s.staleStatusKey);
    next.observed(snap('TASK_STATE_COMPLETED', 't4'));
    s.awaitReview(['fine']);
    assert.equal(s.record.pending?.requestId, 'd1/request-3');
    next.awaitReview(['fine']);
    assert.equal(next.record.pending?.requestId, 'd1/request-3', 'request ids go on from the carried count');
  });

  it('is not carried while ending or being reviewed', () => {
    const s = new DelegationState('d1', input);
    s.resolved({ agent: agent }, 0, 0);
    s.observed(snap('TASK_STATE_COMPLETED', 't1'));
    s.awaitReview(['looks right']);
    const waiting = s.carryAt('review');
    assert.ok('carry' in waiting, 'waiting for a review can be carried');
    const resumed = DelegationState.resumed(input, JSON.parse(JSON.stringify(waiting.carry)));
    resumed.reviewGiven({ decision: 'accept', by: 'acme/ops-1' });
    assert.deepEqual(resumed.carryAt('review'), { refused: 'a review is being applied' });
    assert.deepEqual(
      resumed.decideOnReview().reasons,
      ['looks right', 'accepted on review by acme/ops-1'],
      'with the reasons it waited on',
    );
    const cancelled = new DelegationState('d2', input);
    cancelled.requestCancel('acme/ops-1', 'no longer needed');
    assert.deepEqual(cancelled.carryAt('observe'), { refused: 'the delegation is ending' });
  });
});

describe("DelegationState: the run's decisions", () => {
  it('sends in the first workflow task only when the local activity ends before the task would be heartbeat', () => {
    const s = new DelegationState('d1', input);
    assert.equal(s.sendsInFirstTask(10_000), true, "the server's default task timeout");
    assert.equal(s.sendsInFirstTask(5_000), false, 'a short task timeout sends from the task queue');
  });

  it('reads sparsely once the task worked past sparsePoll.after, and quickly again after a new turn', () => {
    const s = new DelegationState('d1', input);
    s.resolved({ agent: { ...agent, sparsePoll: { after: '10m', every: '1m' } } }, 0, 0);
    assert.deepEqual(s.howToObserve(), { kind: 'poll' });
    s.observedWith({ kind: 'poll' }, { kind: 'observe' });
    assert.deepEqual(s.howToObserve(), { kind: 'sparse', every: '1m' });
    s.turnSent(s.nextMessageId(), 't1');
    assert.deepEqual(s.howToObserve(), { kind: 'poll' }, 'a new turn: the task may be quick again');
    const push = new DelegationState('d2', input);
    push.resolved({ agent: { ...agent, observe: 'push', sparsePoll: { after: '0s', every: '1m' } } }, 0, 0);
    assert.deepEqual(push.howToObserve(), { kind: 'push' });
  });

  it('counts the deadline from the start and carries it, with the agent, the rule and unread pushes, as one whole', () => {
    const s = new DelegationState('d1', { ...input, contract: { deadline: '1h' } });
    assert.deepEqual(s.resolved({ agent, continueAsNewAfterEvents: 900 }, 1_000, 61_000), { wait: 3_600_000 - 60_000 });
    s.run.push.received = 3;
    s.run.push.read = 1;
    const carried = s.carryAt('observe');
    assert.ok('carry' in carried);
    const next = DelegationState.resumed(input, JSON.parse(JSON.stringify(carried.carry)));
    assert.equal(next.run.deadlineAt, 3_601_000);
    assert.equal(next.run.afterEvents, 900);
    assert.equal(next.run.runs, 1);
    assert.deepEqual(next.run.push, { received: 2, read: 0, registered: false });
    assert.deepEqual(next.run.agent, agent);
    assert.deepEqual(new DelegationState('d3', input).carryAt('observe'), { refused: 'the agent is not resolved yet' });
  });
});
