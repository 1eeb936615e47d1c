/**
 * Data labels and agent clearance (docs/data-use.md) on a real worker and a real A2A agent: data an
 * agent is not cleared for is refused before anything reaches it, and Baton's data-use metadata never
 * reaches an agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Message } from '@a2a-js/sdk';
import { InvalidRequestError, RequestRefusedError } from '../../src/client/baton-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { executor, openTask, skill, textOf } from '../../src/demo/kit';
import { DATA_USE_EXTENSION } from '../../src/shared/data-use';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

type Received = { parts: { text?: string; metadata?: Record<string, unknown> }[] };

/** An agent that keeps every message it is sent; "ask" first asks a question, anything else completes. */
function recordingDesk(received: Received[]) {
  return {
    name: 'recording-desk',
    description: 'Keeps what it is sent',
    skills: skill('keep', 'Keeps what it is sent'),
    executor: executor(async (ctx, bus) => {
      received.push(Message.toJSON(ctx.userMessage) as Received);
      openTask(ctx, bus);
      if (/ask/.test(textOf(ctx.userMessage)) && !ctx.task) {
        bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_INPUT_REQUIRED', 'Which cost centre?'));
      } else {
        bus.publish(
          artifactEvent(ctx.taskId, ctx.contextId, { artifactId: `${ctx.taskId}-kept`, name: 'kept', parts: [{ text: 'kept' }] }),
        );
        bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED'));
      }
      bus.finished();
    }),
  };
}

const labelled = (text: string, label: string) => ({ text, metadata: { [DATA_USE_EXTENSION]: { label }, note: 'kept' } });

describe('data labels and agent clearance', () => {
  const received: Received[] = [];
  let agent: RunningAgent;
  before(async () => {
    agent = await startAgentServer(recordingDesk(received));
  });
  after(async () => {
    await agent.close();
  });
  const sentTexts = () => received.flatMap((m) => m.parts.map((p) => p.text));
  const agents = () => ({
    'open-desk': loopbackAgent(agent.url, { acceptance: 'accept-any' }),
    'cleared-desk': loopbackAgent(agent.url, { acceptance: 'accept-any', clearance: ['internal', 'confidential'] }),
  });

  it('refuses data above the agent clearance before anything is sent; sends what it is cleared for without the labels', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const refused = await baton.start({ agent: 'open-desk', parts: [{ text: 'Q3 margins' }], dataUse: { label: 'confidential' } });
      const record = await baton.result(refused);
      assert.equal(record.outcome?.kind, 'ERROR');
      assert.deepEqual(record.outcome?.reasons, [
        'DataRefused: part 1 is labelled confidential, and agent open-desk is cleared only for public (agents.open-desk.clearance); nothing was sent',
      ]);
      assert.equal(record.remote.taskId, undefined, 'no remote task');
      assert.ok(!sentTexts().includes('Q3 margins'), 'the agent was sent nothing');

      // A part's own label counts: the second part is refused, and so is the whole turn.
      const mixed = await baton.start({ agent: 'cleared-desk', parts: [{ text: 'plan' }, labelled('salaries', 'personal')] });
      assert.match(
        (await baton.result(mixed)).outcome?.reasons[0] ?? '',
        /^DataRefused: part 2 is labelled personal, and agent cleared-desk is cleared only for public, internal, confidential/,
      );
      assert.ok(!sentTexts().includes('salaries') && !sentTexts().includes('plan'));

      const cleared = await baton.start({
        agent: 'cleared-desk',
        parts: [labelled('Q3 margins, cleared', 'confidential'), { text: 'unlabelled' }],
        dataUse: { label: 'internal', terms: { purpose: 'board pack', forwarding: 'none' } },
      });
      assert.equal((await baton.result(cleared)).outcome?.kind, 'ACCEPTED');
      const got = received.find((m) => m.parts[0]?.text === 'Q3 margins, cleared');
      assert.ok(got, 'the agent got the turn');
      assert.deepEqual(got.parts[0]?.metadata, { note: 'kept' }, "Baton's data-use metadata is taken off, the rest kept");
      assert.equal(got.parts[1]?.metadata, undefined);
    });
  });

  it('refuses an answer the agent is not cleared for, and the delegation goes on waiting for a good one', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const id = await baton.start({ agent: 'cleared-desk', parts: [{ text: 'ask me' }] });
      const waiting = await baton.until(id, (r: DelegationRecord) => r.status === 'WAITING_INPUT', 20);
      const requestId = waiting.pending?.requestId ?? '';
      const before = received.length;
      await assert.rejects(
        baton.answer(id, requestId, [labelled('the payroll code', 'personal')]),
        (err: Error) =>
          err instanceof RequestRefusedError &&
          /part 1 is labelled personal, and agent cleared-desk is cleared only for public, internal, confidential/.test(err.message),
      );
      assert.equal(received.length, before, 'nothing was sent');
      assert.equal((await baton.show(id)).pending?.requestId, requestId, 'still waiting for the same request');
      await baton.answer(id, requestId, [labelled('CC-104', 'internal')]);
      assert.equal((await baton.result(id)).outcome?.kind, 'ACCEPTED');
      assert.deepEqual(received.at(-1)?.parts, [{ text: 'CC-104', metadata: { note: 'kept' } }]);
    });
  });

  it('refuses unknown labels and forwarding rules naming unknown agents at the worker, malformed terms at the client', async () => {
    await withWorker(agents(), async (ctx) => {
      const baton = batonFor(ctx);
      const unknown = await baton.start({ agent: 'cleared-desk', parts: [{ text: 'secret plan' }], dataUse: { label: 'secret' } });
      assert.match(
        (await baton.result(unknown)).outcome?.reasons[0] ?? '',
        /^DataRefused: part 1 is labelled secret, which is not one of dataUse\.labels/,
      );
      const forward = await baton.start({
        agent: 'cleared-desk',
        parts: [{ text: 'pass it on' }],
        dataUse: { label: 'internal', terms: { forwarding: 'listed-agents', agents: ['open-desk', 'nobody'] } },
      });
      assert.match((await baton.result(forward)).outcome?.reasons[0] ?? '', /terms let it go to nobody, which is no agent in the registry/);
      assert.ok(!sentTexts().includes('secret plan') && !sentTexts().includes('pass it on'));

      const before = (await baton.list({})).length;
      await assert.rejects(
        baton.start({ agent: 'cleared-desk', parts: [{ text: 'x' }], dataUse: { terms: { forwarding: 'listed-agents' } } as never }),
        (err: Error) => err instanceof InvalidRequestError && /forwarding: listed-agents needs the agents it lists/.test(err.message),
      );
      await assert.rejects(
        baton.start({ agent: 'cleared-desk', parts: [{ text: 'x', metadata: { [DATA_USE_EXTENSION]: { label: 'Top Secret' } } }] }),
        (err: Error) =>
          err instanceof InvalidRequestError && /^part 1's data-use metadata is malformed \(label: must be a label name/.test(err.message),
      );
      assert.equal((await baton.list({})).length, before, 'nothing was started');
    });
  });
});
