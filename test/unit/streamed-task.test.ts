import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamedTask } from '../../src/a2a/streamed-task';
import type { StreamEvent, TaskState } from '../../src/shared/a2a-types';

const task = (id = 't1', state: TaskState = 'TASK_STATE_WORKING'): StreamEvent => ({
  task: { id, contextId: 'c1', status: { state }, artifacts: [] },
});
const status = (state: TaskState, taskId = 't1'): StreamEvent => ({ statusUpdate: { taskId, contextId: 'c1', status: { state } } });
const chunk = (text: string, append: boolean, artifactId = 'a1'): StreamEvent => ({
  artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId, name: 'out', parts: [{ text }] }, append },
});

function replay(events: StreamEvent[], opts: { taskId?: string; maxBytes?: number } = {}): StreamedTask {
  const streamed = new StreamedTask(opts.taskId, opts.maxBytes ?? 64 * 1024);
  for (const e of events) streamed.apply(e);
  return streamed;
}

describe('a task as its stream told it', () => {
  it('applies statuses and artifacts the way the agent does: replace by id, append parts', () => {
    const s = replay([
      task(),
      chunk('one ', false),
      chunk('two', true),
      chunk('x', false, 'a2'),
      chunk('y', false, 'a2'),
      status('TASK_STATE_COMPLETED'),
    ]);
    assert.equal(s.trusted?.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(
      s.trusted?.artifacts?.map((a) => [a.artifactId, a.parts.map((p) => p.text).join('')]),
      [
        ['a1', 'one two'],
        ['a2', 'y'],
      ],
    );
  });

  it('is doubtful when the stream did not begin with the task, or named another', () => {
    assert.match(replay([status('TASK_STATE_COMPLETED')]).doubtful ?? '', /before the task snapshot/);
    assert.match(replay([task('t2')], { taskId: 't1' }).doubtful ?? '', /named task t2/);
    assert.match(replay([task(), status('TASK_STATE_COMPLETED', 't9')]).doubtful ?? '', /update named task t9/);
  });

  it("follows a follow-up turn's stream of updates only (Python SDK agents), doubtful so the task is read", () => {
    const s = replay([status('TASK_STATE_WORKING'), chunk('part', false), status('TASK_STATE_INPUT_REQUIRED')], { taskId: 't1' });
    assert.equal(s.task?.id, 't1');
    assert.equal(s.task?.contextId, 'c1');
    assert.equal(s.task?.status.state, 'TASK_STATE_INPUT_REQUIRED', 'its status is followed');
    assert.equal(s.trusted, undefined, 'but its copy is not the agent’s own');
    assert.match(s.doubtful ?? '', /did not begin with the task/);
    // Updates of another task are not taken as the turn's.
    assert.equal(replay([status('TASK_STATE_WORKING', 't9')], { taskId: 't1' }).task, undefined);
  });

  it('is doubtful on a repeated chunk or a chunk of an artifact never started (decision 0015)', () => {
    const repeated = replay([task(), chunk('line', false), chunk('more', true), chunk('more', true), status('TASK_STATE_COMPLETED')]);
    assert.equal(repeated.trusted, undefined);
    assert.match(repeated.doubtful ?? '', /came twice/);
    // The status is still followed, so the caller knows the task settled and reads it.
    assert.equal(repeated.task?.status.state, 'TASK_STATE_COMPLETED');
    assert.match(replay([task(), chunk('orphan', true)]).doubtful ?? '', /before its start/);
  });

  it('is doubtful once its artifacts outgrow the bound, and lets go of them', () => {
    const big = replay([task(), chunk('x'.repeat(500), false), chunk('y'.repeat(600), true)], { maxBytes: 1000 });
    assert.match(big.doubtful ?? '', /passed 1000 bytes/);
    assert.deepEqual(big.task?.artifacts, []);
  });

  it('starts over from a new Task snapshot, as after a resubscription', () => {
    const s = replay([task(), chunk('a', false), task('t1', 'TASK_STATE_COMPLETED')]);
    assert.equal(s.trusted?.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(s.trusted?.artifacts, []);
  });
});
