import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PartSchema, SendMessageResultSchema, TaskSchema, TASK_STATES } from '../../src/shared/a2a-types';

const validTask = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_WORKING', timestamp: '2026-12-02T10:00:00.000Z' },
  artifacts: [{ artifactId: 'a1', name: 'verdict', parts: [{ data: { ok: true }, mediaType: 'application/json' }] }],
};

describe('A2A boundary schemas', () => {
  it('accepts a valid task', () => {
    assert.equal(TaskSchema.parse(validTask).status.state, 'TASK_STATE_WORKING');
  });

  for (const state of ['TASK_STATE_UNSPECIFIED', 'UNRECOGNIZED', 'completed', '', 3]) {
    it(`refuses the state ${JSON.stringify(state)}`, () => {
      assert.equal(TaskSchema.safeParse({ ...validTask, status: { state } }).success, false);
    });
  }

  it('refuses a task without id or contextId', () => {
    assert.equal(TaskSchema.safeParse({ ...validTask, id: '' }).success, false);
    const { contextId: _c, ...noContext } = validTask;
    assert.equal(TaskSchema.safeParse(noContext).success, false);
  });

  it('refuses a part with several contents, or none', () => {
    assert.equal(PartSchema.safeParse({ text: 'a', url: 'https://x' }).success, false);
    assert.equal(PartSchema.safeParse({ mediaType: 'text/plain' }).success, false);
    assert.equal(PartSchema.safeParse({ data: null }).success, true, 'data may be any JSON value, null included');
  });

  it('takes a send result with exactly one of task or message', () => {
    assert.equal(SendMessageResultSchema.safeParse({ task: validTask }).success, true);
    const message = { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    assert.equal(SendMessageResultSchema.safeParse({ message }).success, true);
    assert.equal(SendMessageResultSchema.safeParse({ task: validTask, message }).success, false);
  });

  it('never reads a random object as a task with a valid state unless it has one', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = TaskSchema.safeParse(value);
        if (parsed.success) assert.ok((TASK_STATES as readonly string[]).includes(parsed.data.status.state));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a valid task mutated to carry a wrong state type or value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), (state) => {
        fc.pre(!(TASK_STATES as readonly unknown[]).includes(state));
        assert.equal(TaskSchema.safeParse({ ...validTask, status: { state } }).success, false);
      }),
      { numRuns: 300 },
    );
  });
});
