/**
 * Baton as a client of an agent built on the official Python SDK (a2a-sdk from PyPI,
 * test/interop/python-agent.py): an input round and an auth round, with turns sent on a stream and
 * without one, over JSON-RPC and HTTP+JSON. Such an agent answers a turn on an existing task with
 * updates only, never the Task first: the delegation carries on with the task it knows.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectRoot } from '../../src/runtime/project-root';
import { freePort } from '../../src/runtime/free-port';
import { batonFor, loopbackAgent, withWorker } from '../helpers/temporal';

const PYTHON = join(projectRoot(), '.baton', 'tools', 'a2a-python-1.3.0', 'bin', 'python');
const TOKEN = `py-portal-${process.pid}`;

async function startPythonAgent(): Promise<{ url: string; child: ChildProcess }> {
  assert.ok(existsSync(PYTHON), `no ${PYTHON}: run npm run setup -- --test (it installs a2a-sdk from PyPI)`);
  const port = await freePort();
  const child = spawn(PYTHON, [join(projectRoot(), 'test', 'interop', 'python-agent.py'), String(port)], {
    env: { ...process.env, PY_PORTAL_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      const m = /listening (\S+)/.exec(b.toString());
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the Python agent exited (${code}) before it listened:\n${err}`)));
  });
  return { url, child };
}

describe('an agent on the official Python SDK', () => {
  let agent: { url: string; child: ChildProcess };
  before(async () => {
    agent = await startPythonAgent();
  });
  after(() => {
    agent.child.kill('SIGTERM');
  });

  const cases = [
    { binding: 'JSONRPC', observe: 'stream' },
    { binding: 'JSONRPC', observe: 'poll' },
    { binding: 'HTTP+JSON', observe: 'stream' },
    { binding: 'HTTP+JSON', observe: 'poll' },
  ] as const;
  for (const { binding, observe } of cases) {
    it(`${binding}, turns sent ${observe === 'stream' ? 'on a stream' : 'without one'}: an input round and an auth round`, async () => {
      process.env.PY_PORTAL_TEST_TOKEN = TOKEN;
      const entry = loopbackAgent(`${agent.url}/.well-known/agent-card.json`, {
        binding,
        observe,
        credentials: { portal: { fromEnv: 'PY_PORTAL_TEST_TOKEN' } },
      });
      await withWorker({ 'py-inspector': entry }, async (ctx) => {
        const baton = batonFor(ctx);

        const asked = await baton.start({ agent: 'py-inspector', parts: [{ text: 'Verify inspection-92 against order A1042' }] });
        const question = await baton.until(asked, (r) => r.pending !== null || r.outcome !== undefined, 50);
        assert.equal(question.pending?.kind, 'input', `waits for input, not ${question.status}`);
        assert.match(question.pending?.prompt[0]?.text ?? '', /product serial/);
        await baton.answer(asked, question.pending?.requestId ?? '', [{ text: 'SN-4471' }]);
        const answered = await baton.result(asked);
        assert.equal(answered.outcome?.kind, 'ACCEPTED', JSON.stringify(answered.outcome));
        assert.deepEqual(
          answered.artifacts.map((a) => a.name),
          ['verdict'],
        );
        assert.equal(answered.remote.state, 'TASK_STATE_COMPLETED');

        const gated = await baton.start({ agent: 'py-inspector', parts: [{ text: 'Stock from the portal for BOLT-M8' }] });
        const auth = await baton.until(gated, (r) => r.pending !== null || r.outcome !== undefined, 50);
        assert.equal(auth.pending?.kind, 'auth', `waits for auth, not ${auth.status}`);
        await baton.authorize(gated, auth.pending?.requestId ?? '', 'portal');
        const stocked = await baton.result(gated);
        assert.equal(stocked.outcome?.kind, 'ACCEPTED', JSON.stringify(stocked.outcome));
        assert.deepEqual(
          stocked.artifacts.map((a) => a.name),
          ['stock'],
        );
      });
    });
  }
});
