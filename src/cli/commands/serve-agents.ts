/**
 * `baton serve-agents`: the demo agents without a worker, for a worker elsewhere (docker-compose, a
 * second shell). By default `supplier-qa` alone; with `--all`, every demo agent `baton dev` serves, on
 * the given port and the ports after it, in the order of src/demo/catalog.ts.
 */
import { startAgentServer, type RunningAgent } from '../../demo/agent-server';
import { demoAgents } from '../../demo/catalog';
import { supplierQa } from '../../demo/supplier-qa';
import { UsageError } from '../usage-error';

export interface ServeAgentsOptions {
  host: string;
  port: number;
  /** The card's URL for a single agent. */
  publicUrl?: string;
  /** With --all: the host name agents are reached at (each card says http://<host>:<its port>). */
  publicHost?: string;
  all?: boolean;
}

export async function serveAgentsCommand(opts: ServeAgentsOptions): Promise<number> {
  if (opts.all && opts.publicUrl) throw new UsageError('--public-url names one agent; with --all, give --public-host');
  if (opts.all && opts.port === 0) throw new UsageError('--all needs a fixed --port: the agents take it and the ports after it');
  const defs = opts.all ? demoAgents() : [supplierQa()];
  const agents: RunningAgent[] = [];
  for (const [i, def] of defs.entries()) {
    const port = opts.port === 0 ? 0 : opts.port + i;
    const publicUrl = opts.publicUrl ?? (opts.publicHost ? `http://${opts.publicHost}:${port}` : undefined);
    agents.push(await startAgentServer(def, { host: opts.host, port, ...(publicUrl ? { publicUrl } : {}) }));
  }
  for (const agent of agents) process.stdout.write(`Agent ${agent.name} serving its card at ${agent.cardUrl}\n`);
  process.stdout.write('Ctrl-C stops them\n');
  await new Promise<void>((resolveStop) => {
    const stop = (): void => void Promise.all(agents.map((a) => a.close())).then(() => resolveStop());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
