/**
 * AUTH_REQUIRED answered through the `authorize` Update with a credential the agent's entry allows:
 * only its name enters history; the worker reads the value and sends it on the same remote task.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { portalGate } from '../../src/demo/auth-gate';
import { startAgentServer } from '../../src/demo/agent-server';
import { batonFor, historyText, loopbackAgent, withWorker } from '../helpers/temporal';

describe('authorize', () => {
  it('sends the credential by name, asks again after a wrong one, and keeps it out of history', { timeout: 60_000 }, async () => {
    const secret = `portal-${process.pid}-s3cret`;
    process.env.BATON_TEST_PORTAL_TOKEN = secret;
    process.env.BATON_TEST_WRONG_TOKEN = 'not-it';
    const agent = await startAgentServer(portalGate(secret));
    try {
      const credentials = { portal: { fromEnv: 'BATON_TEST_PORTAL_TOKEN' }, stale: { fromEnv: 'BATON_TEST_WRONG_TOKEN' } };
      await withWorker({ 'portal-gate': loopbackAgent(agent.url, { credentials }) }, async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'portal-gate', parts: [{ text: 'Stock for BOLT-M8?' }] });
        const first = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
        assert.equal(first.status, 'WAITING_AUTH');
        assert.equal(first.pending?.kind, 'auth');
        assert.deepEqual(first.pending?.credentials, ['portal', 'stale'], 'the request lists what may answer it');
        await assert.rejects(baton.answer(id, first.pending?.requestId ?? '', [{ text: secret }]), /use authorize/);

        await baton.authorize(id, first.pending?.requestId ?? '', 'stale');
        const second = await baton.until(
          id,
          (r) => (r.pending !== null && r.pending.requestId !== first.pending?.requestId) || r.outcome !== undefined,
          50,
        );
        assert.equal(second.pending?.kind, 'auth', 'a wrong token gets a new request');
        assert.match(second.pending?.prompt[0]?.text ?? '', /not accepted/);

        await baton.authorize(id, second.pending?.requestId ?? '', 'portal');
        const record = await baton.result(id);
        assert.equal(record.outcome?.kind, 'ACCEPTED');
        assert.equal(record.artifacts[0]?.name, 'stock');

        const history = await historyText(ctx.client, id);
        assert.ok(history.includes('portal'), "the credential's name is in history");
        assert.ok(!history.includes('BATON_TEST_PORTAL_TOKEN'), 'the variable that holds it is not');
        assert.ok(!history.includes(secret), 'the credential is not');
        assert.ok(!history.includes(Buffer.from(secret).toString('base64')), 'not even encoded');
      });
    } finally {
      await agent.close();
      delete process.env.BATON_TEST_PORTAL_TOKEN;
      delete process.env.BATON_TEST_WRONG_TOKEN;
    }
  });
});
