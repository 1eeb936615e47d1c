/**
 * The chaos suite's short form (run in CI): one delegation per fault the fault agent can inject, each
 * with the outcome it must have. Transient faults end ACCEPTED with exactly one remote task; a hostile
 * answer ends in a typed ERROR, never a false success.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FaultAgent, type FaultPlan } from '../../infra/fault-agent';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

interface Case {
  name: string;
  plan: FaultPlan;
  outcome: string;
  reason?: RegExp;
}

const CASES: Case[] = [
  { name: 'bursts-of-5xx', plan: { serverErrors: 0.2, burst: 2, seed: 7 }, outcome: 'ACCEPTED' },
  { name: 'slow', plan: { slowMs: 400 }, outcome: 'ACCEPTED' },
  { name: 'drop-after-create', plan: { dropAfterCreate: 1, seed: 3 }, outcome: 'ACCEPTED' },
  // The same on a send that streams: the stream breaks before its first event.
  { name: 'drop-after-create-stream', plan: { dropAfterCreate: 1, streaming: true, seed: 3 }, outcome: 'ACCEPTED' },
  { name: 'malformed-json', plan: { malformedJson: 1 }, outcome: 'ERROR', reason: /InvalidAgentResponse/ },
  { name: 'wrong-enum', plan: { wrongEnum: 1 }, outcome: 'ERROR', reason: /InvalidAgentResponse/ },
  { name: 'huge-body', plan: { hugeBody: 1 }, outcome: 'ERROR', reason: /cap/ },
  // A bad event on the send's own stream: the task id is recorded before the fault ends the delegation.
  // Working long enough that the subscription meets the bad event too, not a task already done.
  {
    name: 'malformed-stream',
    plan: { malformedStream: true, streaming: true, workMs: 30_000 },
    outcome: 'ERROR',
    reason: /InvalidAgentResponse/,
  },
  // Working well past the send's read window (1 s), so the subscription is what meets the fault.
  { name: 'stalled-stream', plan: { stallStream: true, streaming: true, workMs: 3_000 }, outcome: 'ACCEPTED' },
  { name: 'duplicated-events', plan: { duplicateEvents: true, streaming: true, askOnce: false, workMs: 3_000 }, outcome: 'ACCEPTED' },
  // Transient, so retried: answers cut in transit mid-string, and bodies that never end (callTimeoutMs).
  { name: 'cut-in-transit', plan: { cutInTransit: 2, workMs: 1_500 }, outcome: 'ACCEPTED' },
  { name: 'endless-body', plan: { endlessBody: 2, workMs: 1_500 }, outcome: 'ACCEPTED' },
];

describe('chaos: one delegation per injected fault', () => {
  const agents = new Map<string, FaultAgent>();
  before(async () => {
    for (const c of CASES) agents.set(c.name, await new FaultAgent(c.name, c.plan).start());
    agents.set('complete-on-cancel', await new FaultAgent('complete-on-cancel', { completeOnCancel: true, workMs: 60_000 }).start());
  });
  after(async () => {
    for (const a of agents.values()) await a.close();
  });

  it('ends each delegation as its fault requires, with no duplicate remote task', { timeout: 170_000 }, async () => {
    const registry = Object.fromEntries(
      [...agents].map(([name, a]) => [
        name,
        loopbackAgent(a.url, { acceptance: 'accept-any', limits: { maxResponseBytes: 8 * 1024 * 1024, callTimeoutMs: 1_500 } }),
      ]),
    );
    await withWorker(
      registry,
      async (ctx) => {
        const baton = batonFor(ctx);
        const ids = await Promise.all(CASES.map((c) => baton.start({ agent: c.name, parts: [{ text: `run ${c.name}` }] })));
        const records = await Promise.all(ids.map((id) => baton.result(id)));
        const wrong: string[] = [];
        for (const [i, c] of CASES.entries()) {
          const r = records[i];
          const agent = agents.get(c.name);
          if (r?.outcome?.kind !== c.outcome || (c.reason && !c.reason.test(r.outcome.reasons.join(' '))))
            wrong.push(`${c.name}: ${JSON.stringify(r?.outcome)}`);
          if (agent?.duplicateTasks) wrong.push(`${c.name}: ${agent.duplicateTasks} duplicate remote task(s)`);
        }
        assert.deepEqual(wrong, [], 'wrong outcomes and duplicates');
        const malformed = records[CASES.findIndex((c) => c.name === 'malformed-stream')];
        assert.ok((agents.get('malformed-stream')?.faults.malformedStream ?? 0) >= 1, 'a stream carried an unknown state');
        assert.ok(malformed?.remote.taskId, 'the task the broken send stream created is in the record');
        for (const name of ['drop-after-create', 'drop-after-create-stream'])
          assert.ok((agents.get(name)?.faults.dropAfterCreate ?? 0) >= 1, `${name}: the connection was dropped after the task was created`);
        assert.ok((agents.get('bursts-of-5xx')?.faults.serverErrors ?? 0) >= 1, '5xx were answered');
        assert.ok((agents.get('stalled-stream')?.faults.stallStream ?? 0) >= 1, 'a subscription stalled');
        assert.ok((agents.get('duplicated-events')?.calls.SubscribeToTask ?? 0) >= 1, 'a subscription carried the duplicated events');
        const duplicated = records[CASES.findIndex((c) => c.name === 'duplicated-events')];
        const states = duplicated?.remote.history.map((h) => h.state) ?? [];
        assert.equal(new Set(states).size, states.length, `an event id seen twice is one state change: ${states.join(', ')}`);
        for (const [name, fault] of [
          ['cut-in-transit', 'cutInTransit'],
          ['endless-body', 'endlessBody'],
        ] as const)
          assert.ok((agents.get(name)?.faults[fault] ?? 0) >= 1, `${name}: an answer was broken`);

        // Completing while the cancel is on its way: the cancel wins locally, the remote end is kept.
        const id = await baton.start({ agent: 'complete-on-cancel', parts: [{ text: 'long work' }] });
        await baton.until(id, (r) => r.status === 'REMOTE_ACTIVE', 20);
        const cancelled = await baton.cancel(id, 'changed our mind');
        assert.equal(cancelled.outcome?.kind, 'CANCELED');
        assert.match(
          cancelled.outcome?.reasons.join(' ') ?? '',
          /ended COMPLETED before the cancel reached it; its result is not accepted/,
        );
      },
      { streamSilenceMs: 500 },
    );
  });
});
