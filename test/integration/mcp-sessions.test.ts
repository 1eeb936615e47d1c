/**
 * MCP sessions that outlive `baton ui`: a host opens a session on one `baton ui` process, a delegation
 * asks it a question, the process stops and another starts with the same session key; the host
 * answers through the same session, without initializing again, and the delegation settles. A
 * session id is no use to another caller, forged, after its host ended it, or under another key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { supplierQa } from '../../src/demo/supplier-qa';
import { CliProcess, userEnv } from '../../infra/cli-process';
import { loopbackAgent, testServer, withWorker } from '../helpers/temporal';

const ACME = 'acme-mcp-restart-token-0123456789';
const GLOBEX = 'globex-mcp-restart-token-0123456789';
const KEY = 'mcp-session-key-for-this-test-0123456789';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = any;
const structured = (r: CallToolResult): Structured => {
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  return r.structuredContent;
};

/** A raw MCP request on session `id` with `token`: what a host whose client library we do not control sends. */
const raw = (url: string, token: string, id: string, method = 'tools/list'): Promise<Response> =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method }),
  });

describe('MCP sessions across baton ui restarts', () => {
  let qa: RunningAgent;
  before(async () => {
    qa = await startAgentServer(supplierQa({ workMs: 30 }));
  });
  after(() => qa.close());

  it('a host goes on in its session after a restart, without initializing again', { timeout: 120_000 }, async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
      const { address } = await testServer();
      const config = join(mkdtempSync(join(tmpdir(), 'baton-mcp-restart-')), 'baton.config.yaml');
      writeFileSync(
        config,
        [
          `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }`,
          `agents: { supplier-qa: { card: "${qa.url}", allowHttp: true, allowPrivateNetwork: true } }`,
          'api:',
          '  callers:',
          '    - { tokenFromEnv: UI_TOKEN_ACME, tenant: acme, user: ops-1 }',
          '    - { tokenFromEnv: UI_TOKEN_GLOBEX, tenant: globex, user: mallory }',
          '',
        ].join('\n'),
      );
      const env = (key: string) =>
        userEnv({ BATON_CONFIG: config, UI_TOKEN_ACME: ACME, UI_TOKEN_GLOBEX: GLOBEX, BATON_MCP_SESSION_KEY: key });
      const startUi = async (port: number | string, key = KEY): Promise<{ ui: CliProcess; url: string }> => {
        const ui = new CliProcess(['ui', '--port', String(port)], env(key));
        await ui.waitFor('Baton web app and API at');
        return { ui, url: /at (http:\/\/\S+)/.exec(ui.stdout)?.[1] ?? '' };
      };
      const stop = async (ui: CliProcess): Promise<void> => {
        ui.child.kill('SIGTERM');
        assert.deepEqual(await ui.exited, { code: 0, signal: null });
      };

      const first = await startUi(0);
      const port = new URL(first.url).port;
      // Every JSON-RPC method the host's client sends, to see that it never initializes again.
      const sent: string[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${first.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${ACME}` } },
        fetch: (url, init) => {
          if (typeof init?.body === 'string') sent.push((JSON.parse(init.body) as { method?: string }).method ?? 'response');
          return fetch(url, init);
        },
      });
      const client = new Client({ name: 'baton-restart-host', version: '1.0.0' });
      client.onerror = () => undefined; // the GET stream drops with the process; the client says so here
      await client.connect(transport);
      let second: { ui: CliProcess; url: string } | undefined;
      try {
        const asking = structured(
          (await client.callTool({
            name: 'delegate',
            arguments: { agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042', waitSeconds: 30 },
          })) as CallToolResult,
        );
        assert.equal(asking.pending.kind, 'input');
        const sessionId = transport.sessionId ?? '';
        assert.ok(sessionId);

        await stop(first.ui);
        second = await startUi(port);
        const answered = structured(
          (await client.callTool({
            name: 'answer',
            arguments: { id: asking.id, requestId: asking.pending.requestId, text: 'SN-4471', waitSeconds: 30 },
          })) as CallToolResult,
        );
        assert.equal(answered.delegation.outcome.kind, 'ACCEPTED');
        assert.equal(transport.sessionId, sessionId, 'the same session');
        assert.equal(sent.filter((m) => m === 'initialize').length, 1, `initialized once: ${sent.join(', ')}`);
        assert.match(second.ui.stdout + second.ui.stderr, /MCP session taken up again from its id/);

        // Not another caller's, nor a forged one; both look like no session at all.
        const foreign = await raw(second.url, GLOBEX, sessionId);
        assert.equal(foreign.status, 404);
        assert.match(((await foreign.json()) as { error: { message: string } }).error.message, /no such MCP session.*initialize a new one/);
        const [payload, seal] = sessionId.split('.') as [string, string];
        const forged = `${payload.slice(0, -2)}${payload.endsWith('A') ? 'B' : 'A'}${payload.slice(-1)}.${seal}`;
        assert.equal((await raw(second.url, ACME, forged)).status, 404);

        // A session its host ended stays ended, here.
        const other = new StreamableHTTPClientTransport(new URL(`${second.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${ACME}` } },
        });
        const otherClient = new Client({ name: 'baton-restart-host', version: '1.0.0' });
        await otherClient.connect(other);
        const otherId = other.sessionId ?? '';
        await other.terminateSession();
        assert.equal((await raw(second.url, ACME, otherId)).status, 404);
        await otherClient.close();

        // Under another key the id opens nothing: the host is told to initialize again.
        await stop(second.ui);
        second = await startUi(port, 'another-mcp-session-key-0123456789abcdef');
        const elsewhere = await raw(second.url, ACME, sessionId);
        assert.equal(elsewhere.status, 404);
        assert.equal((await raw(second.url, ACME, sessionId)).status, 404);
      } finally {
        await client.close().catch(() => undefined);
        if (second) await stop(second.ui).catch(() => undefined);
        else first.ui.child.kill('SIGTERM');
      }
    });
  });
});
