/**
 * The `baton` command as a user runs it: `demo` on its own private stack, and `dev` stopped and
 * started again on its SQLite file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DelegationRecord } from '../../src/shared/delegation-types';
import { freePort } from '../../src/runtime/temporal-server';
import { alive, CliProcess, logsOf, runCli, userEnv } from '../helpers/cli';

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

describe('baton dev', () => {
  it('stops cleanly on SIGTERM and SIGINT, and keeps workflows across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-dev-'));
    const [port, uiPort, agentsPort, webhookPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const db = join(dir, 'temporal.sqlite');
    // The web app on a port the system picks (the sign-in link names it): no race for a free one.
    const args = [
      'dev',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--agents-port',
      String(agentsPort),
      '--webhook-port',
      String(webhookPort),
      '--app-port',
      '0',
      '--db',
      db,
    ];
    const config = join(dir, 'baton.config.yaml');
    writeFileSync(config, `temporal: { address: "127.0.0.1:${port}" }\ncaller: { tenant: acme, user: ops-1 }\n`);
    const clientEnv = userEnv({ BATON_CONFIG: config });

    const first = new CliProcess(args, userEnv());
    await first.waitFor('Baton dev stack is up.');
    assert.match(first.stdout, new RegExp(`Web UI {7}http://127\\.0\\.0\\.1:${uiPort}`));
    const firstServer = serverPid(first.logs());

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
    assert.match(first.stdout, new RegExp(`Webhook {6}http://127\\.0\\.0\\.1:${webhookPort}/push/`));
    const pushed = await runCli(
      ['delegate', '--agent', 'skyway-air', '--text', 'Book a flight to Helsinki', '--wait', '--json'],
      clientEnv,
    );
    assert.equal(pushed.code, 0, pushed.stderr);
    const flight = JSON.parse(pushed.stdout) as DelegationRecord;
    assert.equal(flight.agent.observe, 'push');
    assert.equal(flight.outcome?.kind, 'ACCEPTED');

    first.child.kill('SIGTERM');
    assert.deepEqual(await first.exited, { code: 0, signal: null });
    assert.equal(alive(firstServer), false, 'SIGTERM left no Temporal server behind');

    const second = new CliProcess(args, userEnv());
    await second.waitFor('Baton dev stack is up.');
    const shown = await runCli(['show', record.id, '--json'], clientEnv);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout), record, 'the earlier delegation survived the restart');

    const missing = await runCli(['show', 'dlg-does-not-exist'], clientEnv);
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
      const dev = new CliProcess(
        [
          'dev',
          '--port',
          String(await freePort()),
          '--ui-port',
          String(await freePort()),
          '--agents-port',
          String(await freePort()),
          '--webhook-port',
          '0',
          '--app-port',
          String(appPort),
          '--db',
          join(dir, 'temporal.sqlite'),
        ],
        userEnv(),
      );
      // Once the stack it had started is stopped, the process ends by itself: no signal is sent.
      assert.deepEqual(await dev.exited, { code: 1, signal: null });
      assert.match(dev.stderr, new RegExp(`baton: 127\\.0\\.0\\.1:${appPort} is in use`));
      assert.equal(alive(serverPid(dev.logs())), false, 'its Temporal server is gone');
    } finally {
      busy.close();
    }
  });
});
