/**
 * What an A2A caller sees of a served task, and its ids: pure functions, no server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { servedContextId, servedTaskId, turnUpdateId } from '../../src/served-tasks/task-id';
import {
  changesBetween,
  delegationStatus,
  taskStateOf,
  wireTaskOf,
  visibilityClauseFor,
  withHistoryLength,
} from '../../src/served-tasks/task-view';

const record = (over: Partial<DelegationRecord> = {}): DelegationRecord => ({
  id: 'a2a-svc-1',
  tenant: 'acme',
  owner: 'ops-1',
  agent: { name: 'supplier-qa' },
  status: 'REMOTE_ACTIVE',
  remote: { history: [{ state: 'TASK_STATE_WORKING', observedAt: '2026-12-04T10:00:01.000Z' }] },
  pending: null,
  turns: [],
  notes: [],
  refusedSignals: [],
  remoteCalls: 1,
  artifacts: [],
  ...over,
});

const facts = { id: 'a2a-svc-1', contextId: 'ctx-1', startedAt: '2026-12-04T10:00:00.000Z' };
const verdict = { artifactId: 'v', name: 'verdict', parts: [{ data: { verdict: 'pass' } }] };

describe('served task view', () => {
  it('completes only with an accepted outcome; every other outcome keeps its own state and says why', () => {
    const settled = (kind: NonNullable<DelegationRecord['outcome']>['kind']) =>
      wireTaskOf(delegationStatus(record({ status: 'SETTLED', outcome: { kind, reasons: ['because'] } })), {
        ...facts,
        artifacts: [verdict],
      });
    assert.equal(settled('ACCEPTED').status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(settled('ACCEPTED').artifacts, [verdict]);
    for (const [kind, state] of [
      ['REJECTED', 'TASK_STATE_FAILED'],
      ['REMOTE_FAILED', 'TASK_STATE_FAILED'],
      ['REMOTE_REJECTED', 'TASK_STATE_REJECTED'],
      ['CANCELED', 'TASK_STATE_CANCELED'],
      ['TIMED_OUT', 'TASK_STATE_FAILED'],
      ['ERROR', 'TASK_STATE_FAILED'],
    ] as const) {
      const task = settled(kind);
      assert.equal(task.status.state, state, kind);
      assert.deepEqual(task.artifacts, [], `${kind}: no artifacts reach the caller`);
      assert.equal(task.status.message?.parts[0]?.text, `${kind}: because`);
    }
  });

  it('gives the turns as history, oldest first, questions before their answers; historyLength keeps the latest', () => {
    const turns = [
      { messageId: 'a2a-svc-1/turn-1', sentAt: 't0', parts: [{ text: 'verify' }] },
      { messageId: 'a2a-svc-1/turn-2', sentAt: 't2', parts: [{ text: 'SN-1' }], question: [{ text: 'Serial?' }] },
      { messageId: 'old-record-turn', sentAt: 't3' },
    ];
    const task = wireTaskOf(delegationStatus(record({ turns })), { ...facts, turns });
    assert.deepEqual(
      task.history.map((m) => [m.role, m.messageId, m.parts[0]?.text, m.taskId, m.contextId]),
      [
        ['ROLE_USER', 'a2a-svc-1/turn-1', 'verify', 'a2a-svc-1', 'ctx-1'],
        ['ROLE_AGENT', 'a2a-svc-1/turn-2/question', 'Serial?', 'a2a-svc-1', 'ctx-1'],
        ['ROLE_USER', 'a2a-svc-1/turn-2', 'SN-1', 'a2a-svc-1', 'ctx-1'],
      ],
    );
    assert.equal(withHistoryLength(task, undefined).history.length, 3, 'unset: no limit');
    assert.deepEqual(withHistoryLength(task, 0).history, []);
    assert.deepEqual(
      withHistoryLength(task, 2).history.map((m) => m.messageId),
      ['a2a-svc-1/turn-2/question', 'a2a-svc-1/turn-2'],
    );
    assert.equal(wireTaskOf(delegationStatus(record()), facts).history.length, 0, 'a graph’s task, or none kept: no history');
  });

  it('shows the agent question while waiting, with the request id as the message id', () => {
    const pending = {
      kind: 'input' as const,
      requestId: 'a2a-svc-1/request-1',
      prompt: [{ text: 'Which serial?' }],
      taskId: 'remote-1',
      contextId: 'rc',
      observedAt: '2026-12-04T10:00:05.000Z',
      statusKey: 'k',
    };
    const task = wireTaskOf(delegationStatus(record({ status: 'WAITING_INPUT', pending })), facts);
    assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(task.status.message?.messageId, 'a2a-svc-1/request-1');
    assert.deepEqual(task.status.message?.parts, [{ text: 'Which serial?' }]);
    assert.equal(task.status.timestamp, '2026-12-04T10:00:05.000Z');
    const auth = wireTaskOf(
      delegationStatus(record({ status: 'WAITING_AUTH', pending: { ...pending, kind: 'auth', credentials: ['portal'] } })),
      facts,
    );
    assert.equal(auth.status.state, 'TASK_STATE_AUTH_REQUIRED');
    assert.deepEqual(auth.status.message?.metadata?.credentials, ['portal']);
    // A review is Baton's own step: the caller sees work going on.
    assert.equal(taskStateOf({ status: 'WAITING_REVIEW' }), 'TASK_STATE_WORKING');
    assert.equal(taskStateOf({ status: 'STARTING' }), 'TASK_STATE_SUBMITTED');
  });

  it('streams the artifacts before the status that completes, and nothing when nothing changed', () => {
    const working = wireTaskOf(delegationStatus(record()), facts);
    const done = wireTaskOf(delegationStatus(record({ status: 'SETTLED', outcome: { kind: 'ACCEPTED', reasons: [] } })), {
      ...facts,
      artifacts: [verdict],
    });
    assert.deepEqual(
      changesBetween(working, done).map((e) => Object.keys(e)[0]),
      ['artifactUpdate', 'statusUpdate'],
    );
    assert.deepEqual(changesBetween(working, wireTaskOf(delegationStatus(record()), facts)), []);
  });

  it('names the delegations a ListTasks status means', () => {
    assert.equal(visibilityClauseFor('TASK_STATE_INPUT_REQUIRED'), "(BatonStatus IN ('WAITING_INPUT'))");
    assert.equal(visibilityClauseFor('TASK_STATE_COMPLETED'), "((BatonStatus = 'SETTLED' AND BatonOutcome IN ('ACCEPTED')))");
    assert.match(visibilityClauseFor('TASK_STATE_WORKING'), /'REMOTE_ACTIVE', 'WAITING_REVIEW', 'CANCELLING'/);
    assert.match(visibilityClauseFor('TASK_STATE_FAILED'), /'REJECTED', 'REMOTE_FAILED', 'TIMED_OUT', 'ERROR'/);
  });
});

describe('served task ids', () => {
  const acme = { tenant: 'acme', user: 'ops-1' };
  const KEY = Buffer.from('a served task id key of the test, 32+ characters');
  it('derive from service, caller and messageId, so a retried message finds its task', () => {
    assert.equal(servedTaskId(KEY, 'svc', acme, 'm-1'), servedTaskId(KEY, 'svc', acme, 'm-1'));
    assert.match(servedTaskId(KEY, 'svc', acme, 'm-1'), /^a2a-svc-[0-9a-f]{32}$/);
    const others = [
      servedTaskId(KEY, 'svc', acme, 'm-2'),
      servedTaskId(KEY, 'other', acme, 'm-1'),
      servedTaskId(KEY, 'svc', { tenant: 'globex', user: 'ops-1' }, 'm-1'),
      servedTaskId(KEY, 'svc', { tenant: 'acme', user: 'ops-2' }, 'm-1'),
      // Fields are length-prefixed: moving a character between them is another id.
      servedTaskId(KEY, 'svc', { tenant: 'acm', user: 'eops-1' }, 'm-1'),
    ];
    assert.equal(new Set([servedTaskId(KEY, 'svc', acme, 'm-1'), ...others]).size, others.length + 1);
    assert.notEqual(servedContextId('a'), servedContextId('b'));
    // Keyed: without the server's key, nobody computes another caller's future task id.
    assert.notEqual(
      servedTaskId(Buffer.from('another key of the same length, 32+ chars'), 'svc', acme, 'm-1'),
      servedTaskId(KEY, 'svc', acme, 'm-1'),
    );
    assert.notEqual(turnUpdateId('t', acme, 'm'), turnUpdateId('t', acme, 'n'));
  });
});
