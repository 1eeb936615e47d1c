/**
 * A served stream whose caller went away stops waiting at once: the wait for the task's next change
 * is given the caller's signal, and the stream ends when it fires. The task service is a stand-in
 * here (what Temporal answers does not matter; the stopping does).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ServerCallContext } from '@a2a-js/sdk/server';
import pino from 'pino';
import { CallerUser, ServedAgent } from '../../src/serve/served-agent';
import type { ServedTasks } from '../../src/served-tasks/served-tasks';
import type { WireTask } from '../../src/served-tasks/task-view';

const working: WireTask = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_WORKING', timestamp: '2026-12-05T00:00:00.000Z' },
  artifacts: [],
  history: [],
  metadata: {},
};

it('a served stream ends once its caller has gone, without waiting for the task', { timeout: 10_000 }, async () => {
  const waits: AbortSignal[] = [];
  const tasks = {
    view: () => Promise.resolve(working),
    watch: () => ({
      read: () => Promise.resolve(working),
      // Nothing ever changes: only the signal can end this wait.
      changed: (o: { signal?: AbortSignal }) =>
        new Promise<boolean>((resolve) => {
          if (o.signal) waits.push(o.signal);
          o.signal?.addEventListener('abort', () => resolve(false), { once: true });
        }),
    }),
  } as unknown as ServedTasks;
  const agent = new ServedAgent({
    name: 'qa',
    config: {} as never,
    card: () => Promise.resolve({}),
    tasks,
    taskIdKey: Buffer.alloc(32),
    pushConfigs: {} as never,
    pollMs: 250,
    logger: pino({ level: 'silent' }),
  });
  const gone = new AbortController();
  const context = new ServerCallContext({ user: new CallerUser({ tenant: 'acme', user: 'ops-1' }, gone.signal) });
  const stream = agent.resubscribe({ tenant: '', id: 'task-1' }, context);
  const first = await stream.next();
  assert.equal(first.done, false, 'the stream opens with the task');
  const next = stream.next();
  // The stream now waits for a change; the caller goes away.
  await new Promise<void>((r) => setImmediate(r));
  assert.equal(waits.length, 1, 'one wait under way');
  gone.abort();
  assert.equal((await next).done, true, 'the stream ended');
  assert.equal(waits[0]?.aborted, true, 'and the wait under way was stopped');
});
