/**
 * An agent that echoes a credential cannot put it into history or the logs: every configured secret
 * value is replaced by a marker in what the agent sends back (status, artifacts, replies, errors), and
 * the agent's error text is capped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { echoGate, type EchoGate } from '../helpers/echo-gate';
import { RawAgent } from '../helpers/raw-agent';
import { batonFor, historyText, loopbackAgent, withWorker } from '../helpers/temporal';

const ERP_TOKEN = `erp-${process.pid}-Zq81xv`;
const QA_TOKEN = `qa-${process.pid}-Kp02wd`;
const forms = (secret: string): string[] => [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url')];

describe('redaction of echoed secrets', () => {
  let gate: EchoGate;
  let agent: RunningAgent;
  const raw = new RawAgent();
  before(async () => {
    process.env.BATON_TEST_ERP_TOKEN = ERP_TOKEN;
    process.env.BATON_TEST_QA_TOKEN = QA_TOKEN;
    gate = echoGate();
    agent = await startAgentServer(gate.definition);
    await raw.start();
  });
  after(async () => {
    await agent.close();
    await raw.close();
    delete process.env.BATON_TEST_ERP_TOKEN;
    delete process.env.BATON_TEST_QA_TOKEN;
  });

  it('keeps a credential the agent repeats in its status and artifacts out of history and logs', async () => {
    const logLines: Record<string, unknown>[] = [];
    const entry = loopbackAgent(agent.url, { credentials: { erp: { fromEnv: 'BATON_TEST_ERP_TOKEN' } }, acceptance: 'accept-any' });
    await withWorker(
      { 'echo-gate': entry },
      async (ctx) => {
        const baton = batonFor(ctx);
        const id = await baton.start({ agent: 'echo-gate', parts: [{ text: 'stock?' }] });
        const waiting = await baton.until(id, (r) => r.pending !== null, 50);
        await baton.authorize(id, waiting.pending?.requestId ?? '', 'erp');
        const record = await baton.result(id);
        assert.deepEqual(gate.received, [ERP_TOKEN], 'the agent did get the credential, and echoed it');
        const artifact = record.artifacts[0];
        assert.equal(artifact?.redacted, true);
        assert.deepEqual(artifact?.parts, [
          { text: 'you sent [redacted: a configured secret]' },
          { data: { echoed: '[redacted: a configured secret]' } },
        ]);
        const history = await historyText(ctx.client, id);
        for (const form of forms(ERP_TOKEN)) assert.ok(!history.includes(form), `history holds no ${form}`);
        assert.match(history, /thanks for \[redacted: a configured secret\]/, 'the status message is kept, the secret is not');
        const logs = JSON.stringify(logLines);
        for (const form of forms(ERP_TOKEN)) assert.ok(!logs.includes(form), 'the logs hold none either');
      },
      { logLines },
    );
  });

  it("caps an agent's error text and keeps the credential it echoes out of the outcome", async () => {
    raw.rpc = (r, headers) => {
      if (r.method === 'SendMessage')
        return RawAgent.result(r, { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } });
      const told = `no such task for ${String(headers.authorization)}; ` + 'blah '.repeat(20_000);
      return { body: JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: -32001, message: told } }) };
    };
    const entry = loopbackAgent(raw.url, {
      auth: { scheme: 'Bearer', fromEnv: 'BATON_TEST_QA_TOKEN' },
      observe: 'poll',
      readAfterSendMs: 0,
    });
    await withWorker({ raw: entry }, async (ctx) => {
      const baton = batonFor(ctx);
      const record = await baton.result(await baton.start({ agent: 'raw', parts: [{ text: 'hello' }] }));
      assert.equal(record.outcome?.kind, 'ERROR');
      const reason = record.outcome?.reasons[0] ?? '';
      assert.match(reason, /^AgentRefused: .*no such task for Bearer \[redacted: a configured secret\]; blah/);
      assert.ok(reason.length <= 2_100, `the reason is capped (${reason.length} characters)`);
      const history = await historyText(ctx.client, record.id);
      for (const form of forms(QA_TOKEN)) assert.ok(!history.includes(form), `history holds no ${form}`);
    });
  });
});
