/**
 * A small MCP server for the tests of workflows calling MCP tools: an order lookup with an output
 * schema, a tool that reads an environment variable (what a stdio server is given), one that says
 * which process serves it, one that returns as many bytes as asked, and one no config allows. Run as a script it serves stdio; `toolServer()`
 * is the same server for a Streamable HTTP endpoint.
 */
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import { z } from 'zod';

const ORDERS: Record<string, { serialNumber: string; amountPaid: number }> = {
  A1042: { serialNumber: 'SN-4471', amountPaid: 129 },
  A1077: { serialNumber: 'SN-5120', amountPaid: 1950 },
};

export function toolServer(): McpServer {
  const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
  server.registerTool(
    'lookup_order',
    {
      description: 'An order by its id.',
      inputSchema: { orderId: z.string() },
      outputSchema: { orderId: z.string(), serialNumber: z.string(), amountPaid: z.number() },
    },
    async ({ orderId }) => {
      const order = ORDERS[orderId];
      if (!order) return { isError: true, content: [{ type: 'text', text: `no order ${orderId} on record` }] };
      const found = { orderId, ...order };
      return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: found };
    },
  );
  server.registerTool(
    'read_env',
    { description: 'An environment variable of this server.', inputSchema: { name: z.string() } },
    async ({ name }) => ({
      content: [{ type: 'text', text: process.env[name] ?? '(unset)' }],
    }),
  );
  server.registerTool('big', { description: 'As many bytes as asked.', inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => ({
    content: [{ type: 'text', text: 'x'.repeat(bytes) }],
  }));
  server.registerTool('whoami', { description: 'The process id of this server.' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool('not_allowed', { description: 'No config lists this one.' }, async () => ({
    content: [{ type: 'text', text: 'called' }],
  }));
  return server;
}

/**
 * The same tools over Streamable HTTP on loopback, one stateless server per request. With `token`, a
 * request without `Authorization: Bearer <token>` is 401; `seen` collects the Authorization headers.
 */
export async function serveToolsOverHttp(
  opts: { token?: string; seen?: (string | undefined)[] } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(express.json());
  app.post('/mcp', (req, res) => {
    opts.seen?.push(req.get('authorization'));
    if (opts.token && req.get('authorization') !== `Bearer ${opts.token}`) return void res.status(401).json({ error: 'unauthorized' });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = toolServer();
    res.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res, req.body));
  });
  const listening = app.listen(0, '127.0.0.1');
  await new Promise((r) => listening.once('listening', r));
  return {
    url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((r) => listening.close(() => r())),
  };
}

/** A raw `initialize` POST to an MCP endpoint, as a host's first request (`token`: its bearer token). */
export function initializeRequest(url: string, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'baton-test', version: '1' } },
    }),
  });
}

if (require.main === module) void toolServer().connect(new StdioServerTransport());
