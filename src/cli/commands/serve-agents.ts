/**
 * `baton serve-agents`: only the demo agents, for a worker elsewhere (docker-compose, a second shell).
 */
import { startAgentServer } from '../../demo/agent-server';
import { supplierQa } from '../../demo/supplier-qa';

export async function serveAgentsCommand(opts: { host: string; port: number; publicUrl?: string }): Promise<number> {
  const agent = await startAgentServer(supplierQa(), opts);
  process.stdout.write(`Agent ${agent.name} serving its card at ${agent.cardUrl} (Ctrl-C stops it)\n`);
  await new Promise<void>((resolveStop) => {
    const stop = (): void => void agent.close().then(resolveStop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
