/**
 * Workflows calling MCP tools through `callMcpTool`, on a real worker and Temporal: a stdio server
 * started per call and a Streamable HTTP one behind a bearer token. What the config allows works;
 * everything else fails at once with a typed, non-retryable failure; a stdio server is given only the
 * environment variables its entry names, and a named secret it returns never reaches history; a kept
 * connection serves the next calls.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import pino from 'pino';
import { closeMcpConnections } from '../../activities/mcp-connections';
import { withBaton } from '../../src/embed/with-baton';
import { installTemporalRuntime } from '../../src/runtime/logger';
import { REDACTED } from '../../src/secrets/redactor';
import { historyText, testServer } from '../helpers/temporal';
import { serveToolsOverHttp } from '../../infra/mcp-tool-server';
import { callTool, type ToolCallInput } from '../workflows/mcp-tools';

const quiet = pino({ level: 'warn' }, pino.destination(2));
const SECRET = 'orders-db-password-7f3a9c';
const TOKEN = 'mcp-http-token-0123456789abcdef';

describe('workflows calling MCP tools', () => {
  let http: { url: string; close(): Promise<void> };
  const seenAuth: (string | undefined)[] = [];

  before(async () => {
    process.env.BATON_TEST_MCP_SECRET = SECRET;
    process.env.BATON_TEST_MCP_UNNAMED = 'not-for-the-server';
    process.env.BATON_TEST_MCP_TOKEN = TOKEN;
    // A Streamable HTTP server that wants a bearer token.
    http = await serveToolsOverHttp({ token: TOKEN, seen: seenAuth });
  });
  after(async () => {
    await http.close();
  });

  it('calls what the config allows, refuses the rest with typed failures, and keeps secrets out of history', async () => {
    installTemporalRuntime(quiet);
    const { address, namespace } = await testServer();
    const taskQueue = `mcp-${randomUUID()}`;
    const native = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    const stdio = { command: process.execPath, args: [require.resolve('../../infra/mcp-tool-server')] };
    const config = {
      agents: {},
      mcp: {
        servers: {
          orders: {
            ...stdio,
            env: ['BATON_TEST_MCP_SECRET'],
            tools: ['lookup_order', 'read_env', 'whoami', 'big', 'missing_tool'],
            maxResultBytes: 4096,
          },
          'orders-fresh': { ...stdio, keepAliveMs: 0, tools: ['whoami'] },
          'orders-http': {
            url: http.url,
            allowHttp: true,
            allowPrivateNetwork: true,
            auth: { scheme: 'Bearer', fromEnv: 'BATON_TEST_MCP_TOKEN' },
            tools: ['lookup_order'],
          },
          'orders-http-public-only': { url: http.url, allowHttp: true, tools: ['lookup_order'] },
        },
      },
    };
    try {
      const options = await withBaton(
        { connection: native, namespace, taskQueue, workflowsPath: require.resolve('../workflows/mcp-tools'), activities: {} },
        { config, logger: quiet },
      );
      const worker = await Worker.create({ ...options, shutdownGraceTime: '2s' });
      const client = new Client({ connection, namespace });
      const run = (input: ToolCallInput) => {
        const workflowId = `mcp-${randomUUID()}`;
        return client.workflow.execute(callTool, { workflowId, taskQueue, args: [input] }).then((out) => ({ ...out, workflowId }));
      };
      await worker.runUntil(async () => {
        // stdio, with the workflow checking the structured result.
        const found = await run({ server: 'orders', tool: 'lookup_order', args: { orderId: 'A1042' }, schema: 'order' });
        assert.deepEqual(found.result?.output, { orderId: 'A1042', serialNumber: 'SN-4471', amountPaid: 129 });
        assert.equal(found.result?.isError, false);
        const missing = await run({ server: 'orders', tool: 'lookup_order', args: { orderId: 'A9999' }, schema: 'order' });
        assert.equal(missing.result?.isError, true, "the tool's own failure is data");
        assert.equal(missing.result?.text, 'no order A9999 on record');

        // Streamable HTTP, its credential read on the worker by name.
        const overHttp = await run({ server: 'orders-http', tool: 'lookup_order', args: { orderId: 'A1077' }, schema: 'order' });
        assert.deepEqual(overHttp.result?.structuredContent, { orderId: 'A1077', serialNumber: 'SN-5120', amountPaid: 1950 });
        assert.ok(seenAuth.includes(`Bearer ${TOKEN}`));
        assert.doesNotMatch(await historyText(client, overHttp.workflowId), new RegExp(TOKEN));

        // Only named variables reach a stdio server; a named secret it echoes is redacted before history.
        const unnamed = await run({ server: 'orders', tool: 'read_env', args: { name: 'BATON_TEST_MCP_UNNAMED' } });
        assert.equal(unnamed.result?.text, '(unset)');
        const named = await run({ server: 'orders', tool: 'read_env', args: { name: 'BATON_TEST_MCP_SECRET' } });
        assert.equal(named.result?.text, REDACTED);
        assert.doesNotMatch(await historyText(client, named.workflowId), new RegExp(SECRET));

        // A kept connection serves the next calls (one stdio server); keepAliveMs 0 starts one per call.
        const pid = async (server: string) => (await run({ server, tool: 'whoami' })).result?.text;
        const kept = await pid('orders');
        assert.match(kept ?? '', /^\d+$/);
        assert.equal(await pid('orders'), kept);
        assert.notEqual(await pid('orders-fresh'), await pid('orders-fresh'));

        // Refusals, each at once (one attempt) and typed.
        const refusals: [ToolCallInput, string, RegExp][] = [
          [{ server: 'nowhere', tool: 'lookup_order' }, 'McpServerUnknown', /no MCP server nowhere is configured on this worker/],
          [{ server: 'orders', tool: 'not_allowed' }, 'McpToolNotAllowed', /not in its allowlist \(mcp\.servers\.orders\.tools\)/],
          [{ server: 'orders', tool: 'missing_tool' }, 'McpToolMissing', /offers no tool missing_tool/],
          [
            { server: 'orders', tool: 'big', args: { bytes: 10_000 } },
            'McpResultTooLarge',
            /over mcp\.servers\.orders\.maxResultBytes \(4096\)/,
          ],
          [
            { server: 'orders', tool: 'lookup_order', args: { orderId: 'A1042' }, schema: 'wrong' },
            'McpOutputInvalid',
            /returned a result the workflow refuses: amountPaid: invalid_type/,
          ],
          [{ server: 'orders-http-public-only', tool: 'lookup_order', args: { orderId: 'A1042' } }, 'McpRefused', /allowPrivateNetwork/],
        ];
        for (const [input, type, message] of refusals) {
          const out = await run(input);
          assert.equal(out.failure?.type, type, JSON.stringify(out));
          assert.match(out.failure?.message ?? '', message);
          const history = await client.workflow.getHandle(out.workflowId).fetchHistory();
          const attempts = (history.events ?? [])
            .filter((e) => e.activityTaskStartedEventAttributes)
            .map((e) => e.activityTaskStartedEventAttributes?.attempt);
          assert.deepEqual(attempts, [1], `${type}: one attempt`);
        }
      });
    } finally {
      closeMcpConnections();
      await connection.close();
      await native.close();
    }
  });
});
