/**
 * Credentials cannot be misdirected: a caller (or an agent's prompt) names a credential the agent's
 * entry allows, never a variable of the worker's; anything else is refused before it reaches the agent.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InvalidRequestError } from '../../src/client/errors';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { authorizeSignal, authorizeUpdate } from '../../workflows/messages';
import { runCli, userEnv } from '../../infra/cli-process';
import { echoGate, type EchoGate } from '../helpers/echo-gate';
import { batonFor, historyText, loopbackAgent, testServer, withWorker, type TestWorkerContext } from '../helpers/temporal';

const PUSH_SECRET = `push-${process.pid}-not-for-agents`;
const ERP_TOKEN = `erp-${process.pid}-token`;
const ACME = { tenant: 'acme', user: 'ops-1' };

/** Asserts an Update was refused by the workflow's validator with a reason matching `why`. */
async function refusedUpdate(update: Promise<unknown>, why: RegExp): Promise<void> {
  await assert.rejects(update, (err: unknown) => {
    const reason = (err as { cause?: { message?: string } }).cause?.message ?? String(err);
    assert.match(reason, why);
    return true;
  });
}

describe('credentials cannot be misdirected', () => {
  let gate: EchoGate;
  let agent: RunningAgent;
  const entry = () =>
    loopbackAgent(agent.url, {
      credentials: { erp: { fromEnv: 'BATON_TEST_ERP_TOKEN' }, 'globex-only': { fromEnv: 'BATON_TEST_PUSH_SECRET', tenants: ['globex'] } },
    });
  before(async () => {
    process.env.BATON_TEST_PUSH_SECRET = PUSH_SECRET;
    process.env.BATON_TEST_ERP_TOKEN = ERP_TOKEN;
    gate = echoGate();
    agent = await startAgentServer(gate.definition);
  });
  after(async () => {
    await agent.close();
    delete process.env.BATON_TEST_PUSH_SECRET;
    delete process.env.BATON_TEST_ERP_TOKEN;
  });

  /** A delegation to the echo gate, waiting for authentication. */
  const waiting = async (ctx: TestWorkerContext): Promise<DelegationRecord> => {
    const baton = batonFor(ctx);
    const id = await baton.start({ agent: 'echo-gate', parts: [{ text: 'stock?' }] });
    const record = await baton.until(id, (r) => r.pending !== null || r.outcome !== undefined, 50);
    assert.equal(record.pending?.kind, 'auth');
    return record;
  };

  it('refuses an authorize that names any variable of the worker', async () => {
    await withWorker({ 'echo-gate': entry() }, async (ctx) => {
      const record = await waiting(ctx);
      // What a caller could send before: the name of any variable on the worker.
      const legacy = { requestId: record.pending?.requestId, secretRef: { fromEnv: 'BATON_TEST_PUSH_SECRET' }, caller: ACME };
      await refusedUpdate(
        ctx.client.workflow.getHandle(record.id).executeUpdate(authorizeUpdate, { args: [legacy as never] }),
        /authorize names a credential \(credential: <name>\), not a variable of the worker; agent echo-gate accepts erp/,
      );
      // The same by Signal (another workflow): kept as refused, nothing sent.
      await ctx.client.workflow.getHandle(record.id).signal(authorizeSignal, legacy as never);
      const refused = await batonFor(ctx).until(record.id, (r) => r.refusedSignals.length > 0, 50);
      assert.match(refused.refusedSignals[0]?.reason ?? '', /not a variable of the worker/);
      assert.deepEqual(gate.received, [], 'the agent received nothing');
      await batonFor(ctx).cancel(record.id);
    });
  });

  it('offers only the credentials the entry allows for the tenant, refuses others before the workflow, and sends the named one', async () => {
    await withWorker({ 'echo-gate': entry() }, async (ctx) => {
      const baton = batonFor(ctx);
      const record = await waiting(ctx);
      assert.deepEqual(record.pending?.credentials, ['erp'], "globex's credential is not offered to acme");
      const requestId = record.pending?.requestId ?? '';
      const before = (await ctx.client.workflow.getHandle(record.id).fetchHistory()).events?.length;

      for (const name of ['globex-only', 'BATON_TEST_PUSH_SECRET', 'nope']) {
        await assert.rejects(baton.authorize(record.id, requestId, name), (err: unknown) => {
          assert.ok(err instanceof InvalidRequestError, String(err));
          assert.equal(err.message, `credential "${name}" is not one delegation ${record.id} may send; agent echo-gate accepts: erp`);
          return true;
        });
      }
      // Past the client (a raw Update), the workflow refuses the same, before anything is written.
      await refusedUpdate(
        ctx.client.workflow
          .getHandle(record.id)
          .executeUpdate(authorizeUpdate, { args: [{ requestId, credential: 'globex-only', caller: ACME }] }),
        /credential "globex-only" is not one this delegation may send; agent echo-gate accepts erp/,
      );
      assert.equal((await ctx.client.workflow.getHandle(record.id).fetchHistory()).events?.length, before, 'no refusal entered history');
      assert.deepEqual(gate.received, []);

      await baton.authorize(record.id, requestId, 'erp');
      const done = await baton.result(record.id);
      assert.equal(done.outcome?.kind, 'ACCEPTED');
      assert.deepEqual(gate.received, [ERP_TOKEN], 'exactly the named credential went out');
      const history = await historyText(ctx.client, record.id);
      assert.ok(!history.includes('BATON_TEST_ERP_TOKEN'), "the worker's variable is not in history");
    });
  });

  it('says it in one line on the command line, with the names allowed', async () => {
    await withWorker({ 'echo-gate': entry() }, async (ctx) => {
      const record = await waiting(ctx);
      const { address } = await testServer();
      const config = join(mkdtempSync(join(tmpdir(), 'baton-credentials-')), 'baton.config.yaml');
      writeFileSync(config, `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\n`);
      const env = userEnv({ BATON_CONFIG: config });
      const variable = await runCli(['authorize', record.id, '--from-env', 'BATON_TEST_PUSH_SECRET'], env);
      assert.equal(variable.code, 2, variable.stderr);
      assert.match(variable.stderr, /unknown option '--from-env'/);
      const unknown = await runCli(['authorize', record.id, '--credential', 'globex-only'], env);
      assert.equal(unknown.code, 2, unknown.stderr);
      assert.equal(
        unknown.stderr,
        `baton: credential "globex-only" is not one delegation ${record.id} may send; agent echo-gate accepts: erp\n`,
      );
      const none = await runCli(['authorize', record.id], env);
      assert.equal(none.code, 2, none.stderr);
      assert.equal(none.stderr, "baton: give --credential <name>: one of the credentials the agent's entry allows\n");
      const sent = await runCli(['authorize', record.id, '--credential', 'erp', '--json'], env);
      assert.equal(sent.code, 0, sent.stderr);
      assert.equal((JSON.parse(sent.stdout) as { credential: string }).credential, 'erp');
      assert.equal((await batonFor(ctx).result(record.id)).outcome?.kind, 'ACCEPTED');
      assert.ok(!gate.received.includes(PUSH_SECRET), 'the push secret never reached the agent');
    });
  });
});
