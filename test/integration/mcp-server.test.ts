/**
 * Baton's MCP server with the MCP SDK's own client, against a real worker, Temporal and supplier-qa:
 * over stdio (`baton mcp` as a host starts it) and over Streamable HTTP (the `/mcp` of the HTTP API,
 * with its bearer tokens). A delegation is started, asks for the serial number, is answered and
 * settles; the accepted artifact is read as a resource; a watched record notifies; malformed input
 * and foreign callers are refused with nothing started.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { PolicyRegistry } from '../../src/acceptance/policies';
import { BatonClient } from '../../src/client/baton-client';
import { DeclaredPolicySchema } from '../../src/config/schema';
import { GraphClient } from '../../src/client/graph-client';
import { startAgentServer, type RunningAgent } from '../../src/demo/agent-server';
import { portalGate } from '../../src/demo/auth-gate';
import { supplierQa } from '../../src/demo/supplier-qa';
import { startApiServer } from '../../src/http/api-server';
import { CallerTokens } from '../../src/auth/caller-tokens';
import { BATON, userEnv } from '../../infra/cli-process';
import { initializeRequest } from '../../infra/mcp-tool-server';
import { batonFor, historyText, loopbackAgent, testServer, withWorker } from '../helpers/temporal';

// Structured results are read loosely once the SDK checked them against each tool's output schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = any;

const ACME = 'acme-mcp-token-0123456789abcdef';
const GLOBEX = 'globex-mcp-token-0123456789abcdef';
const TOOLS = [
  'answer',
  'authorize',
  'cancel_delegation',
  'delegate',
  'list_agents',
  'list_delegations',
  'review',
  'run_graph',
  'show_delegation',
  'show_graph',
];

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const structured = (r: CallToolResult): Structured => {
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  return r.structuredContent;
};
const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/**
 * The whole path a host takes: tools listed, supplier-qa's card read, a delegation that asks for the
 * serial number, answered, settled ACCEPTED, its verdict read as a resource, its record watched.
 */
async function delegateThroughMcp(client: Client): Promise<string> {
  const tools = await client.listTools();
  assert.deepEqual(tools.tools.map((t) => t.name).sort(), TOOLS);
  for (const t of tools.tools) {
    assert.match(t.description ?? '', /untrustedAgentText/, `${t.name} says how agents' text comes`);
    assert.ok(t.outputSchema, `${t.name} has an output schema`);
  }
  // A credential passes by name only: the tool has no field a secret could be given in.
  const authorize = tools.tools.find((t) => t.name === 'authorize');
  assert.deepEqual(Object.keys(authorize?.inputSchema.properties ?? {}).sort(), ['credential', 'id', 'requestId', 'waitSeconds']);

  const agents = structured(await call(client, 'list_agents', {}));
  const qa = agents.agents.find((a: Structured) => a.name === 'supplier-qa');
  assert.equal(qa.state, 'ok');
  assert.match(qa.skills[0].about.untrustedAgentText, /inspection/i);

  const started = structured(
    await call(client, 'delegate', { agent: 'supplier-qa', text: 'Verify inspection-92 against order A1042', waitSeconds: 30 }),
  );
  assert.match(started.id, /^dlg-/);
  assert.equal(started.status, 'WAITING_INPUT');
  assert.equal(started.pending.kind, 'input');
  assert.match(started.pending.prompt.untrustedAgentText, /serial number/);
  assert.match(started.next, /call answer/);
  assert.equal(started.resource, `baton://delegations/${started.id}`);

  // Watch the record: the answer's effect arrives as notifications/resources/updated.
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  await client.subscribeResource({ uri: started.resource });

  const answered = structured(
    await call(client, 'answer', { id: started.id, requestId: started.pending.requestId, text: 'SN-4471', waitSeconds: 30 }),
  );
  assert.match(answered.messageId, /./);
  const settled = answered.delegation;
  assert.equal(settled.status, 'SETTLED');
  assert.equal(settled.outcome.kind, 'ACCEPTED');
  assert.equal(settled.outcome.accepted, true);
  assert.equal(settled.artifacts.length, 1);

  // The artifact, by digest, as a resource: its bytes match the digest the record gives.
  const artifact = settled.artifacts[0];
  assert.equal(artifact.resource, `baton://delegations/${started.id}/artifacts/${artifact.sha256}`);
  const read = await client.readResource({ uri: artifact.resource });
  const content = read.contents[0] as { text?: string; mimeType?: string };
  assert.equal(
    createHash('sha256')
      .update(content.text ?? '')
      .digest('hex'),
    artifact.sha256,
  );
  // A data artifact's bytes are its parts as JSON (what its digest is taken over, as the HTTP API serves it).
  assert.equal(content.mimeType, 'application/json');
  assert.equal(JSON.parse(content.text ?? '[]')[0].data.verdict, 'pass');

  const record = await client.readResource({ uri: started.resource });
  assert.equal(JSON.parse((record.contents[0] as { text: string }).text).outcome.kind, 'ACCEPTED');
  // The watch told of the change (the subscription was made while it waited for input).
  for (let i = 0; i < 100 && !updated.length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(updated.includes(started.resource), `notified of ${started.resource}: ${JSON.stringify(updated)}`);

  // Malformed input: the MCP error, and nothing started.
  const before = structured(await call(client, 'list_delegations', { agent: 'supplier-qa' })).delegations.length;
  const malformed = await call(client, 'delegate', { agent: 'supplier-qa', text: 'x', waitSeconds: 'soon' });
  assert.equal(malformed.isError, true);
  assert.match(textOf(malformed), /Input validation error.*waitSeconds/s);
  const empty = await call(client, 'delegate', { agent: 'supplier-qa' });
  assert.equal(empty.isError, true);
  assert.equal(textOf(empty), 'InvalidRequest: give text or data: nothing was sent');
  const unknown = await call(client, 'delegate', { agent: 'nobody-here', text: 'hello' });
  assert.match(textOf(unknown), /^InvalidRequest: no agent nobody-here is configured here: nothing was started/);
  assert.equal(structured(await call(client, 'list_delegations', { agent: 'supplier-qa' })).delegations.length, before);
  return started.id as string;
}

const PORTAL_SECRET = `portal-mcp-${process.pid}-s3cret`;

describe('baton mcp', () => {
  let qa: RunningAgent;
  let gate: RunningAgent;
  before(async () => {
    process.env.BATON_TEST_MCP_PORTAL_TOKEN = PORTAL_SECRET;
    qa = await startAgentServer(supplierQa({ workMs: 30 }));
    gate = await startAgentServer(portalGate(PORTAL_SECRET));
  });
  after(async () => {
    await qa.close();
    await gate.close();
    delete process.env.BATON_TEST_MCP_PORTAL_TOKEN;
  });

  it('over stdio: delegates, asks, is answered, and serves the accepted artifact', async () => {
    await withWorker({ 'supplier-qa': loopbackAgent(qa.url) }, async (ctx) => {
      const { address } = await testServer();
      const config = join(mkdtempSync(join(tmpdir(), 'baton-mcp-')), 'baton.config.yaml');
      writeFileSync(
        config,
        [
          `temporal: { address: "${address}", taskQueue: "${ctx.taskQueue}" }`,
          'caller: { tenant: acme, user: desk-assistant }',
          `agents: { supplier-qa: { card: "${qa.url}", allowHttp: true, allowPrivateNetwork: true } }`,
          '',
        ].join('\n'),
      );
      const stderr: string[] = [];
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BATON, 'mcp'],
        env: userEnv({ BATON_CONFIG: config }) as Record<string, string>,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (c: Buffer) => stderr.push(c.toString()));
      const client = new Client({ name: 'baton-test-host', version: '1.0.0' });
      await client.connect(transport);
      try {
        const id = await delegateThroughMcp(client);
        // It acted as the config's caller.
        const record = await batonFor(ctx, 'acme', 'desk-assistant').show(id);
        assert.equal(record.owner, 'desk-assistant');
      } finally {
        await client.close();
      }
      assert.doesNotMatch(stderr.join(''), /"level":(50|60)/, 'no error logged');
    });
  });

  it('over Streamable HTTP with the API tokens: authorizes by credential name; another caller is refused', async () => {
    const agents = {
      'supplier-qa': loopbackAgent(qa.url),
      'portal-gate': loopbackAgent(gate.url, { credentials: { portal: { fromEnv: 'BATON_TEST_MCP_PORTAL_TOKEN' } } }),
    };
    const policies = new PolicyRegistry().declareAll({
      'second-look': DeclaredPolicySchema.parse({ base: 'completed-with-artifact', review: true }),
    });
    await withWorker(
      agents,
      async (ctx) => {
        const opts = { namespace: ctx.client.options.namespace, taskQueue: ctx.taskQueue, caller: { tenant: 'nobody', user: 'nobody' } };
        const api = await startApiServer({
          baton: new BatonClient(ctx.client.connection, opts),
          graphs: new GraphClient(ctx.client.connection, opts),
          tokens: new CallerTokens([
            { token: ACME, caller: { tenant: 'acme', user: 'ops-1' } },
            { token: GLOBEX, caller: { tenant: 'globex', user: 'mallory' } },
          ]),
          logger: pino({ level: 'warn' }),
          host: '127.0.0.1',
          port: 0,
          uiDir: null,
          mcp: { agents },
        });
        const connect = async (token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
          const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
            requestInit: { headers: { Authorization: `Bearer ${token}` } },
          });
          const client = new Client({ name: 'baton-test-host', version: '1.0.0' });
          await client.connect(transport);
          return { client, transport };
        };
        try {
          const acme = await connect(ACME);
          const id = await delegateThroughMcp(acme.client);
          assert.equal((await batonFor(ctx, 'acme', 'ops-1').show(id)).owner, 'ops-1');

          // An auth request answered with a credential named, never given: the secret stays out of history.
          const gated = structured(
            await call(acme.client, 'delegate', { agent: 'portal-gate', text: 'Stock for BOLT-M8?', waitSeconds: 30 }),
          );
          assert.equal(gated.pending.kind, 'auth');
          assert.deepEqual(gated.pending.credentials, ['portal']);
          assert.match(gated.next, /call authorize/);
          const authorized = structured(
            await call(acme.client, 'authorize', {
              id: gated.id,
              requestId: gated.pending.requestId,
              credential: 'portal',
              waitSeconds: 30,
            }),
          );
          assert.equal(authorized.delegation.outcome.kind, 'ACCEPTED');
          assert.doesNotMatch(await historyText(ctx.client, gated.id), new RegExp(PORTAL_SECRET));

          // A result that waits for review, decided by the model's host; a delegation cancelled while it asks.
          const inReview = structured(
            await call(acme.client, 'delegate', {
              agent: 'supplier-qa',
              text: 'Verify inspection-93 against order A1043, product SN-5120',
              policy: 'second-look',
              waitSeconds: 30,
            }),
          );
          assert.equal(inReview.pending.kind, 'review');
          assert.equal(inReview.artifacts.length, 1, 'the reviewer sees what it decides on');
          const reviewed = structured(
            await call(acme.client, 'review', { id: inReview.id, requestId: inReview.pending.requestId, decision: 'accept' }),
          );
          assert.equal(reviewed.outcome.kind, 'ACCEPTED');
          const asking = structured(
            await call(acme.client, 'delegate', {
              agent: 'supplier-qa',
              text: 'Verify inspection-94 against order A1044',
              waitSeconds: 30,
            }),
          );
          assert.equal(asking.pending.kind, 'input');
          const cancelled = structured(await call(acme.client, 'cancel_delegation', { id: asking.id, reason: 'order withdrawn' }));
          assert.equal(cancelled.outcome.kind, 'CANCELED');

          // A graph of two delegations, one after the other; each node names its delegation's resource.
          const spec = {
            nodes: [
              { id: 'first', agent: 'supplier-qa', text: 'Verify inspection-95 against order A1045, product SN-7001' },
              {
                id: 'second',
                agent: 'supplier-qa',
                text: 'Verify inspection-96 against order A1046, product SN-7002',
                dependsOn: ['first'],
              },
            ],
          };
          const graph = structured(await call(acme.client, 'run_graph', { spec, waitSeconds: 60 }));
          assert.equal(graph.status, 'SETTLED');
          assert.equal(graph.outcome.kind, 'ACCEPTED');
          const shownGraph = structured(await call(acme.client, 'show_graph', { id: graph.id }));
          assert.deepEqual(
            shownGraph.nodes.map((n: Structured) => [n.id, n.outcome, n.resource]),
            ['first', 'second'].map((n) => [n, 'ACCEPTED', `baton://delegations/${encodeURIComponent(`${graph.id}/${n}`)}`]),
          );
          const nodeRecord = await acme.client.readResource({ uri: shownGraph.nodes[1].resource });
          assert.equal(JSON.parse((nodeRecord.contents[0] as { text: string }).text).outcome.kind, 'ACCEPTED');
          const badGraph = await call(acme.client, 'run_graph', { spec: { nodes: [{ id: 'x', agent: 'nobody', text: 'hi' }] } });
          assert.equal(badGraph.isError, true);
          assert.match(textOf(badGraph), /nobody/);

          // Globex sees nothing of acme's: not the delegation, its record, its artifacts, nor a watch on it.
          const globex = await connect(GLOBEX);
          const shown = await call(globex.client, 'show_delegation', { id });
          assert.equal(shown.isError, true);
          assert.match(textOf(shown), /^NotFound: /);
          await assert.rejects(globex.client.readResource({ uri: `baton://delegations/${id}` }), /NotFound/);
          await assert.rejects(globex.client.subscribeResource({ uri: `baton://delegations/${id}` }), /NotFound/);
          const answer = await call(globex.client, 'cancel_delegation', { id });
          assert.match(textOf(answer), /^NotFound: /);
          assert.deepEqual(structured(await call(globex.client, 'list_delegations', {})).delegations, []);

          // Acme's session id with globex's token is no session at all; no token, or an unknown one, is 401.
          const hijack = await fetch(`${api.url}/mcp`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${GLOBEX}`,
              'Content-Type': 'application/json',
              Accept: 'application/json, text/event-stream',
              'mcp-session-id': acme.transport.sessionId ?? '',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
          });
          assert.equal(hijack.status, 404);
          for (const token of [undefined, 'not-a-known-token-0123456789']) {
            const res = await initializeRequest(`${api.url}/mcp`, token);
            assert.equal(res.status, 401);
            assert.equal(res.headers.get('www-authenticate'), 'Bearer');
            assert.match(((await res.json()) as { error: { message: string } }).error.message, /^Unauthorized: /);
          }
          await acme.client.close();
          await globex.client.close();
        } finally {
          await api.close();
        }
      },
      { policies },
    );
  });
});
