/**
 * The `baton` command as a user runs it: `demo` on its own private stack, and `dev` stopped and
 * started again on its SQLite file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectCliPaths } from '../../src/runtime/temporal-server';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { alive, CliProcess, logsOf, runCli, userEnv } from '../../infra/cli-process';

function serverPid(logs: Record<string, unknown>[]): number {
  const ready = logs.find((l) => l.msg === 'Temporal dev server ready');
  assert.ok(ready, 'the Temporal dev server was started and logged its pid');
  return ready.pid as number;
}

describe('baton demo', () => {
  it('prints an ACCEPTED delegation, exits 0 and leaves no process behind', async () => {
    const run = await runCli(['demo', '--json'], userEnv());
    assert.equal(run.code, 0, run.stderr);
    const record = JSON.parse(run.stdout) as DelegationRecord;
    assert.equal(record.outcome?.kind, 'ACCEPTED');
    assert.equal(record.agent.name, 'supplier-qa');
    assert.ok(record.remote.taskId);
    const logs = logsOf(run.stderr);
    assert.ok(
      logs.some((l) => l.delegationId === record.id && l.remoteTaskId === record.remote.taskId),
      'logs carry both ids',
    );
    assert.equal(alive(serverPid(logs)), false, 'the dev server it started is gone');
  });
});

/** `baton dev` on free ports (it picks them, retrying if the dev server loses one, and prints them). */
const devArgs = (db: string, appPort = 0): string[] => [
  'dev',
  '--port',
  '0',
  '--ui-port',
  '0',
  '--agents-port',
  '0',
  '--webhook-port',
  '0',
  '--app-port',
  String(appPort),
  '--db',
  db,
];

describe('baton dev', () => {
  it('stops cleanly on SIGTERM and SIGINT, and keeps workflows across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-dev-'));
    const db = join(dir, 'temporal.sqlite');
    const args = devArgs(db);
    const config = join(dir, 'baton.config.yaml');
    writeFileSync(config, 'caller: { tenant: acme, user: ops-1 }\n');
    /** The client's environment for a running `baton dev`: the Temporal address it printed. */
    const clientEnvOf = (dev: CliProcess): NodeJS.ProcessEnv => {
      const address = /^ {2}Temporal {5}(127\.0\.0\.1:\d+) /m.exec(dev.stdout)?.[1];
      assert.ok(address, dev.stdout);
      return userEnv({ BATON_CONFIG: config, TEMPORAL_ADDRESS: address });
    };

    const first = new CliProcess(args, userEnv());
    await first.waitFor('Baton dev stack is up.');
    const uiUrl = /^ {2}Web UI {7}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(first.stdout)?.[1];
    assert.ok(uiUrl, first.stdout);
    assert.equal((await fetch(uiUrl)).status, 200, 'the Temporal Web UI answers on the port dev printed');
    const firstServer = serverPid(first.logs());
    const clientEnv = clientEnvOf(first);

    const delegated = await runCli(
      ['delegate', '--agent', 'supplier-qa', '--text', 'Verify inspection-92 against order A1042, product SN-4471', '--wait', '--json'],
      clientEnv,
    );
    assert.equal(delegated.code, 0, delegated.stderr);
    const record = JSON.parse(delegated.stdout) as DelegationRecord;
    assert.equal(record.outcome?.kind, 'ACCEPTED');

    // Waiting shows progress on stderr: plain lines here (not a terminal), the last one the outcome.
    const waited = await runCli(
      ['delegate', '--agent', 'supplier-qa', '--text', 'Verify inspection-92 against order A1042, product SN-4471', '--wait'],
      clientEnv,
    );
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stderr, /^dlg-\S+ {2}SETTLED {2}remote COMPLETED {2}ACCEPTED {2}\(\d+s\)$/m);
    assert.doesNotMatch(waited.stderr, /\r|\x1b\[/, 'no terminal control codes in a pipe');

    // dev serves the web app and the API; the printed link carries a token for the config's caller.
    const signIn = /Web app {6}(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(first.stdout);
    assert.ok(signIn, first.stdout);
    const [, appUrl, token] = signIn;
    assert.match(await (await fetch(`${appUrl}/`)).text(), /<title>Baton<\/title>/);
    assert.deepEqual(await (await fetch(`${appUrl}/api/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } })).json(), {
      tenant: 'local',
      user: 'dev',
    });
    assert.equal(
      (await fetch(`${appUrl}/api/v1/delegations/${record.id}`, { headers: { Authorization: 'Bearer wrong-token-0123456789' } })).status,
      401,
    );

    // skyway-air offers push, and dev runs the webhook: the flight is followed by push.
    assert.match(first.stdout, /^ {2}Webhook {6}http:\/\/127\.0\.0\.1:\d+\/push\//m);
    const pushed = await runCli(
      ['delegate', '--agent', 'skyway-air', '--text', 'Book a flight to Helsinki', '--wait', '--json'],
      clientEnv,
    );
    assert.equal(pushed.code, 0, pushed.stderr);
    const flight = JSON.parse(pushed.stdout) as DelegationRecord;
    assert.equal(flight.agent.observe, 'push');
    assert.equal(flight.outcome?.kind, 'ACCEPTED');

    // dev serves Baton itself as A2A agents, and registers one of them: a delegation to Baton through A2A.
    assert.match(first.stdout, /^ {2}Serves A2A {3}checked-qa {3}http:\/\/127\.0\.0\.1:\d+\/a2a\/checked-qa/m);
    const viaBaton = await runCli(
      ['delegate', '--agent', 'baton-qa', '--text', 'Verify inspection-92 against order A1042, product SN-4471', '--wait', '--json'],
      clientEnv,
    );
    assert.equal(viaBaton.code, 0, viaBaton.stderr);
    const outer = JSON.parse(viaBaton.stdout) as DelegationRecord;
    assert.equal(outer.outcome?.kind, 'ACCEPTED');
    assert.match(outer.remote.taskId ?? '', /^a2a-checked-qa-/);
    // The pipeline that calls a pipeline: qa-pipeline's second node is baton-qa, that is checked-qa again.
    const rpc = await fetch(`${appUrl}/a2a/qa-pipeline/jsonrpc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: `dev-${Date.now()}`,
            role: 'ROLE_USER',
            parts: [{ text: 'Verify inspection-92 against order A1042, product SN-4471' }],
          },
        },
      }),
    });
    const piped = (await rpc.json()) as { result?: { task?: { status: { state: string }; artifacts?: unknown[] } } };
    assert.equal(piped.result?.task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(piped));
    assert.equal(piped.result?.task?.artifacts?.length, 1);

    first.child.kill('SIGTERM');
    assert.deepEqual(await first.exited, { code: 0, signal: null });
    assert.equal(alive(firstServer), false, 'SIGTERM left no Temporal server behind');

    const second = new CliProcess(args, userEnv());
    await second.waitFor('Baton dev stack is up.');
    const secondEnv = clientEnvOf(second);
    const shown = await runCli(['show', record.id, '--json'], secondEnv);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout), record, 'the earlier delegation survived the restart');

    const missing = await runCli(['show', 'dlg-does-not-exist'], secondEnv);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no delegation with id dlg-does-not-exist/);

    const secondServer = serverPid(second.logs());
    second.child.kill('SIGINT');
    assert.deepEqual(await second.exited, { code: 0, signal: null });
    assert.equal(alive(secondServer), false, 'SIGINT left no Temporal server behind');
  });

  it('exits with the reason, and leaves nothing behind, when the web app cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-dev-'));
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const appPort = (busy.address() as AddressInfo).port;
      const dev = new CliProcess(devArgs(join(dir, 'temporal.sqlite'), appPort), userEnv());
      // Once the stack it had started is stopped, the process ends by itself: no signal is sent.
      assert.deepEqual(await dev.exited, { code: 1, signal: null });
      assert.match(dev.stderr, new RegExp(`baton: 127\\.0\\.0\\.1:${appPort} is in use`));
      assert.equal(alive(serverPid(dev.logs())), false, 'its Temporal server is gone');
    } finally {
      busy.close();
    }
  });

  it('with encryption on, wires its Web UI to the codec server; the database holds only ciphertext', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-dev-'));
    const config = join(dir, 'baton.config.yaml');
    writeFileSync(config, 'encryption:\n  currentKey: dev-1\n  keys:\n    dev-1: { fromEnv: BATON_DEV_KEY }\n');
    const env = userEnv({ BATON_CONFIG: config, BATON_DEV_KEY: randomBytes(32).toString('base64') });
    const dev = new CliProcess(devArgs(join(dir, 'db.sqlite')), env);
    let checked = false;
    try {
      await dev.waitFor('Baton dev stack is up.');
      const address = /^ {2}Temporal {5}(127\.0\.0\.1:\d+) /m.exec(dev.stdout)?.[1];
      const uiUrl = /^ {2}Web UI {7}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(dev.stdout)?.[1];
      assert.ok(address && uiUrl, dev.stdout);
      assert.match(dev.stdout, /^ {2}Codec server http:\/\/127\.0\.0\.1:\d+\/codec /m);
      // The Web UI's own settings name the endpoint it decodes with.
      const settings = (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as { Codec?: { Endpoint?: string } };
      const endpoint = settings.Codec?.Endpoint;
      assert.match(endpoint ?? '', /^http:\/\/127\.0\.0\.1:\d+\/codec\/\S+$/);

      const text = 'Verify inspection-92 against order A1042, product SN-4471';
      const delegated = await runCli(['delegate', '--agent', 'supplier-qa', '--text', text, '--wait', '--json'], {
        ...env,
        TEMPORAL_ADDRESS: address,
      });
      assert.equal(delegated.code, 0, delegated.stderr);
      const id = (JSON.parse(delegated.stdout) as DelegationRecord).id;
      // baton show reads it in clear, through the same keys.
      const shown = await runCli(['show', id, '--json'], { ...env, TEMPORAL_ADDRESS: address });
      assert.equal(shown.code, 0, shown.stderr);
      assert.ok(shown.stdout.includes('SN-4471'), 'baton show decodes the record');
      // The webhook's Signals are encrypted too: a push delegation still settles.
      const pushed = await runCli(['delegate', '--agent', 'skyway-air', '--text', 'Book a flight to Helsinki', '--wait', '--json'], {
        ...env,
        TEMPORAL_ADDRESS: address,
      });
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.deepEqual(
        [(JSON.parse(pushed.stdout) as DelegationRecord).agent.observe, (JSON.parse(pushed.stdout) as DelegationRecord).outcome?.kind],
        ['push', 'ACCEPTED'],
      );

      const cli = projectCliPaths().find((p) => existsSync(p)) as string;
      const raw = execFileSync(cli, ['workflow', 'show', '--address', address, '-w', id, '--output', 'json'], { encoding: 'utf8' });
      const input = (JSON.parse(raw) as { events: { workflowExecutionStartedEventAttributes?: { input: unknown } }[] }).events[0]
        ?.workflowExecutionStartedEventAttributes?.input;
      assert.ok(input);
      assert.ok(!Buffer.from(JSON.stringify(input)).toString('utf8').includes('inspection-92'));
      // What the Web UI does in the browser: POST the raw payloads from its own origin.
      const decoded = await fetch(`${endpoint}/decode`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Origin: uiUrl },
        body: JSON.stringify(input),
      });
      assert.equal(decoded.status, 200);
      assert.equal(decoded.headers.get('access-control-allow-origin'), uiUrl);
      const payloads = ((await decoded.json()) as { payloads: { data: string }[] }).payloads;
      assert.ok(payloads.some((p) => Buffer.from(p.data, 'base64').toString('utf8').includes(text)));
      checked = true;
    } finally {
      dev.child.kill('SIGTERM');
      const exited = await dev.exited;
      // After a failure above, that failure is the one to see (with the stack's output), not the exit code.
      if (checked) assert.deepEqual(exited, { code: 0, signal: null }, dev.stderr);
    }
  });
});
