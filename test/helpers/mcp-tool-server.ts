/**
 * A small MCP server for the tests of workflows calling MCP tools: an order lookup with an output
 * schema, a tool that reads an environment variable (what a stdio server is given), one that returns
 * as many bytes as asked, and one no config allows. Run as a script it serves stdio; `toolServer()`
 * is the same server for a Streamable HTTP endpoint.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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
  server.registerTool('not_allowed', { description: 'No config lists this one.' }, async () => ({
    content: [{ type: 'text', text: 'called' }],
  }));
  return server;
}

if (require.main === module) void toolServer().connect(new StdioServerTransport());
