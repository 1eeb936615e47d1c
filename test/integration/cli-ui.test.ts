/**
 * `baton ui` as a process: it refuses to listen beyond loopback without configured callers, refuses
 * a caller whose token variable is unset, and serves each configured caller by its token.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { initializeRequest } from '../../infra/mcp-tool-server';
import { CliProcess, runCli, userEnv } from '../../infra/cli-process';
import { testServer } from '../helpers/temporal';

describe('baton ui', () => {
  it('listens beyond loopback only for configured callers, and answers each by its token', async () => {
    const { address } = await testServer();
    const dir = mkdtempSync(join(tmpdir(), 'baton-ui-'));
    const bare = join(dir, 'bare.yaml');
    writeFileSync(bare, `temporal: { address: "${address}" }\n`);
    const open = await runCli(['ui', '--host', '0.0.0.0', '--port', '0'], userEnv({ BATON_CONFIG: bare }));
    assert.equal(open.code, 1);
    assert.match(open.stderr, /^baton: api\.listen\.host is 0\.0\.0\.0, but no api\.callers, api\.issuers or api\.signIn are configured/m);

    const withCallers = join(dir, 'callers.yaml');
    writeFileSync(
      withCallers,
      `temporal: { address: "${address}" }\napi:\n  callers:\n    - { tokenFromEnv: UI_TOKEN_ACME, tenant: acme, user: ops-1 }\n    - { tokenFromEnv: UI_TOKEN_GLOBEX, tenant: globex, user: mallory }\n`,
    );
    const unset = await runCli(['ui', '--port', '0'], userEnv({ BATON_CONFIG: withCallers, UI_TOKEN_ACME: 'acme-ui-token-0123456789' }));
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /UI_TOKEN_GLOBEX \(the token of globex\/mallory\) must be set/);

    const ui = new CliProcess(
      ['ui', '--host', '0.0.0.0', '--port', '0'],
      userEnv({ BATON_CONFIG: withCallers, UI_TOKEN_ACME: 'acme-ui-token-0123456789', UI_TOKEN_GLOBEX: 'globex-ui-token-0123456789' }),
    );
    try {
      await ui.waitFor('Baton web app and API at');
      const url = /at (http:\/\/\S+)/.exec(ui.stdout)?.[1] ?? '';
      assert.match(ui.stdout, /2 configured/);
      const whoami = async (token: string) =>
        (await fetch(`${url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } })).json();
      assert.deepEqual(await whoami('acme-ui-token-0123456789'), { tenant: 'acme', user: 'ops-1' });
      assert.deepEqual(await whoami('globex-ui-token-0123456789'), { tenant: 'globex', user: 'mallory' });
      assert.equal((await fetch(`${url}/api/v1/inbox`)).status, 401);
      assert.equal((await fetch(`${url}/api/v1/openapi.json`)).status, 200);
      // MCP for the same callers: a session opens with a caller's token (tested in depth in mcp-server.test).
      assert.match(ui.stdout, new RegExp(`MCP \\(Streamable HTTP\\) at ${url}/mcp`));
      const initialize = (token?: string) => initializeRequest(`${url}/mcp`, token);
      const opened = await initialize('acme-ui-token-0123456789');
      assert.equal(opened.status, 200);
      // A sealed id (payload and seal, base64url), which another baton ui with the same key takes up.
      assert.match(opened.headers.get('mcp-session-id') ?? '', /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{24}$/);
      await opened.body?.cancel();
      assert.equal((await initialize()).status, 401);
    } finally {
      ui.child.kill('SIGTERM');
    }
    assert.deepEqual(await ui.exited, { code: 0, signal: null });

    // A port in use is named, with the way out.
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const port = (busy.address() as AddressInfo).port;
      const taken = await runCli(['ui', '--port', String(port)], userEnv({ BATON_CONFIG: bare }));
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, new RegExp(`^baton: 127\\.0\\.0\\.1:${port} is in use: choose another port`, 'm'));
    } finally {
      busy.close();
    }
  });
});
