/**
 * The shop's order system as a small MCP server (stdio): `lookup_order` gives an order's shipped
 * serial number and the amount paid. Baton's worker starts it for the first lookup a workflow makes and
 * keeps it for the next ones (`mcp.servers.orders` in src/worker.ts); any MCP host could use it too.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { OrderSchema, type Order } from './shop';

const orders: Record<string, Order> = {
  A1042: { orderId: 'A1042', serialNumber: 'SN-4471', amountPaid: 129, currency: 'EUR' },
  A1077: { orderId: 'A1077', serialNumber: 'SN-5120', amountPaid: 1950, currency: 'EUR' },
};

export function ordersServer(): McpServer {
  const server = new McpServer({ name: 'shop-orders', version: '1.0.0' });
  server.registerTool(
    'lookup_order',
    {
      title: 'Look up an order',
      description: 'An order by its id (like A1042): the serial number shipped and the amount paid.',
      inputSchema: { orderId: z.string().regex(/^[A-Z]\d{4}$/, 'an order id like A1042') },
      outputSchema: OrderSchema.shape,
      annotations: { readOnlyHint: true },
    },
    async ({ orderId }) => {
      const order = orders[orderId];
      if (!order) return { isError: true, content: [{ type: 'text', text: `no order ${orderId} on record` }] };
      return { content: [{ type: 'text', text: JSON.stringify(order) }], structuredContent: order };
    },
  );
  return server;
}

if (require.main === module) void ordersServer().connect(new StdioServerTransport());
