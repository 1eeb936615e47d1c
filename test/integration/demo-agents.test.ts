/**
 * The demo agents, one per way a remote task can end, through real delegations; and proof that
 * delegations waiting for a person hold no activity slot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { brokenLab, buildInvestigator, messageDesk, refusingVendor } from '../../src/demo/simple-agents';
import { supplierQa } from '../../src/demo/supplier-qa';
import { batonFor, loopbackAgent, withWorker, type TestWorkerContext } from '../helpers/temporal';

const clientFor = (ctx: TestWorkerContext) => batonFor(ctx);

describe('demo agents and their outcomes', () => {
  const agents: RunningAgent[] = [];
  before(async () => {
    for (const def of [
      messageDesk(),
      refusingVendor(),
      brokenLab({ workMs: 50 }),
      buildInvestigator({ chunks: 4, stepMs: 50 }),
      supplierQa({ workMs: 20 }),
    ]) {
      agents.push(await startAgentServer(def));
    }
  });
  after(async () => {
    for (const a of agents) await a.close();
  });
  const registry = () => Object.fromEntries(agents.map((a) => [a.name, loopbackAgent(a.url)]));

  it('gives each way of ending its own outcome', { timeout: 60_000 }, async () => {
    await withWorker(registry(), async (ctx) => {
      const baton = clientFor(ctx);
      const run = async (agent: string) => baton.result(await baton.start({ agent, parts: [{ text: 'Please look into A1042.' }] }));
      const [message, refused, failed, report] = await Promise.all([
        run('message-desk'),
        run('refusing-vendor'),
        run('broken-lab'),
        run('build-investigator'),
      ]);
      assert.equal(message.outcome?.kind, 'ACCEPTED');
      assert.match(message.reply?.parts[0]?.text ?? '', /lead time/);
      assert.deepEqual(refused.outcome, {
        kind: 'REMOTE_REJECTED',
        reasons: ['agent refused the work (REJECTED)', 'agent said: We no longer take orders for that product line.'],
      });
      assert.deepEqual(failed.outcome, {
        kind: 'REMOTE_FAILED',
        reasons: ['remote task FAILED', 'agent said: Tensile tester offline; no result.'],
      });
      assert.equal(report.outcome?.kind, 'ACCEPTED');
      assert.equal(report.agent.observe, 'stream');
      const parts = report.artifacts[0]?.parts ?? [];
      assert.equal(parts.length, 4, 'the four appended chunks, once each');
      assert.match(parts[3]?.text ?? '', /^Finding 4: .*broken/);
    });
  });

  it('holds no activity slot while delegations wait for a person', { timeout: 60_000 }, async () => {
    // One activity slot: if waiting held it, the third delegation could never run.
    await withWorker(
      registry(),
      async (ctx) => {
        const baton = clientFor(ctx);
        const ask = [{ text: 'Verify inspection report inspection-92 against order A1042' }];
        const waiting = await Promise.all([
          baton.start({ agent: 'supplier-qa', parts: ask }),
          baton.start({ agent: 'supplier-qa', parts: ask }),
        ]);
        for (const id of waiting) assert.equal((await baton.until(id, (r) => r.pending !== null, 50)).status, 'WAITING_INPUT');
        const third = await baton.result(await baton.start({ agent: 'refusing-vendor', parts: [{ text: 'quote?' }] }));
        assert.equal(third.outcome?.kind, 'REMOTE_REJECTED');
        for (const id of waiting) assert.equal((await baton.show(id)).status, 'WAITING_INPUT');
        for (const id of waiting) await baton.cancel(id);
      },
      { maxActivities: 1 },
    );
  });
});
