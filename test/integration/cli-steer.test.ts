/**
 * Steering from the command line, as a user does it: delegate, ls, watch, answer, show, cancel, with a
 * worker on a task queue of the test's own and the caller taken from config or env.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { BATON_VERSION } from '../../src/shared/baton-version';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { CliProcess, runCli, userEnv } from '../../infra/cli-process';
import { loopbackAgent, testServer, withWorker } from '../helpers/temporal';

interface Row {
  id: string;
  status?: string;
  outcome?: string;
  batonVersion?: string;
}

describe('baton delegate, ls, watch, answer, show, cancel', () => {
  let qa: RunningAgent;
  before(async () => {
    qa = await startAgentServer(supplierQa({ workMs: 50 }));
  });
  after(async () => {
    await qa.close();
  });

  it('takes a delegation through a question from the command line', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
      const { address } = await testServer();
      const config = join(mkdtempSync(join(tmpdir(), 'baton-steer-')), 'baton.config.yaml');
      writeFileSync(config, `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }\ncaller: { tenant: acme, user: ops-1 }\n`);
      const env = userEnv({ BATON_CONFIG: config });
      const ls = async (...filters: string[]): Promise<Row[]> => {
        const run = await runCli(['ls', '--json', ...filters], env);
        assert.equal(run.code, 0, run.stderr);
        return JSON.parse(run.stdout) as Row[];
      };

      const started = await runCli(
        ['delegate', '--agent', 'supplier-qa', '--text', 'Verify inspection-92 against order A1042', '--json'],
        env,
      );
      assert.equal(started.code, 0, started.stderr);
      const { id } = JSON.parse(started.stdout) as { id: string };

      const watch = new CliProcess(['watch', id], env);
      // The visibility index is eventually consistent: ask again until it has caught up (bounded).
      let waiting: Row[] = [];
      for (let i = 0; i < 100 && !waiting.some((r) => r.id === id); i++) waiting = await ls('--status', 'WAITING_INPUT');
      assert.ok(
        waiting.some((r) => r.id === id),
        'ls --status WAITING_INPUT lists the delegation',
      );

      const shown = await runCli(['show', id], env);
      assert.match(shown.stdout, /agent asks: "What is the serial number/);
      assert.match(shown.stdout, new RegExp(`^started by  Baton v${BATON_VERSION.replace(/\./g, '\\.')}$`, 'm'));
      // Versions: listed and filtered by the Baton version that started each delegation.
      assert.equal((await ls('--baton-version', BATON_VERSION)).find((r) => r.id === id)?.batonVersion, BATON_VERSION);
      assert.deepEqual(await ls('--baton-version', '0.0.1'), []);
      const table = await runCli(['ls'], env);
      assert.match(table.stdout, new RegExp(`^${id} .* v${BATON_VERSION.replace(/\./g, '\\.')}$`, 'm'));

      const foreign = await runCli(['show', id], { ...env, BATON_TENANT: 'globex' });
      assert.equal(foreign.code, 1);
      assert.match(foreign.stderr, /no delegation with id/);
      assert.deepEqual(await runCli(['ls', '--json'], { ...env, BATON_TENANT: 'globex' }).then((r) => JSON.parse(r.stdout) as Row[]), []);
      const refused = await runCli(['answer', id, '--request', `${id}/request-9`, '--text', 'SN-1'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /refused: request .*request-9 is not the pending one/);

      const answered = await runCli(['answer', id, '--text', 'SN-4471'], env);
      assert.equal(answered.code, 0, answered.stderr);
      assert.match(answered.stdout, new RegExp(`answered ${id}/request-1; sent to the agent as ${id}/turn-2`));

      const watched = await watch.exited;
      assert.equal(watched.code, 0, watch.stderr);
      assert.match(watch.stderr, /WAITING_INPUT .*waiting for input/);
      assert.match(watch.stdout, /outcome +ACCEPTED/);

      const record = JSON.parse((await runCli(['show', id, '--json'], env)).stdout) as DelegationRecord;
      assert.equal(record.outcome?.kind, 'ACCEPTED');
      let accepted: Row[] = [];
      for (let i = 0; i < 100 && !accepted.some((r) => r.id === id); i++) accepted = await ls('--outcome', 'accepted');
      assert.ok(accepted.some((r) => r.id === id && r.status === 'SETTLED'));

      const late = await runCli(['cancel', id], env);
      assert.equal(late.code, 1);
      assert.match(late.stderr, /^baton: delegation .* refused: it has already settled$/m);
    });
  });
});
