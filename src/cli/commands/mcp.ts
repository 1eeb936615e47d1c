/**
 * `baton mcp`: Baton's MCP server over stdio, for desktop hosts that start it as a subprocess. It acts
 * as the config's caller. stdout carries the protocol alone; logs go to stderr. Ends when the host
 * closes stdin, or on Ctrl-C / SIGTERM. (`baton ui` serves the same over Streamable HTTP at /mcp.)
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { configuredStore } from '../../artifacts/configured-store';
import { createBatonMcpServer } from '../../mcp/baton-mcp-server';
import { createLogger } from '../../runtime/logger';
import { connectClient } from '../context';
import { untilStopped } from '../until-stopped';

export async function mcpCommand(opts: { config?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-mcp' });
  const { loaded, baton, graphs, close } = await connectClient(opts.config);
  const { config } = loaded;
  const mcp = createBatonMcpServer({
    baton,
    graphs,
    agents: config.agents,
    artifacts: configuredStore(config, logger.child({ component: 'artifact-store' })),
    logger,
  });
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await mcp.server.connect(transport);
  logger.info({ caller: config.caller, agents: Object.keys(config.agents).length }, 'MCP server on stdio');
  await Promise.race([ended, untilStopped()]);
  await mcp.close();
  await close();
  return 0;
}
