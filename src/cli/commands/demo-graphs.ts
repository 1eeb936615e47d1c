/**
 * `baton demo trip` and `baton demo image`: the task-graph demos on a private stack. The trip books a
 * flight, then a hotel and a snowmobile tour in parallel, then the spa; the image demo draws a
 * sailboat and, while that runs, adds the follow-up "make the boat red".
 */
import { Connection } from '@temporalio/client';
import { GraphClient } from '../../client/graph-client';
import { dataConverterOption } from '../../codec/data-converter';
import { loadConfig } from '../../config/load';
import { RED_BOAT, SAILBOAT, TRIP_TO_HELSINKI } from '../../demo/graph-specs';
import { arcticTours, harborHotel, imageStudio, skywayAir } from '../../demo/trip-agents';
import { createLogger } from '../../runtime/logger';
import { startStack } from '../../runtime/stack';
import type { GraphRecord } from '../../shared/graph-types';
import { formatGraph } from '../graph-output';
import { printJson } from '../output';
import { interrupted } from './demo';

export async function graphDemoCommand(scenario: 'trip' | 'image', opts: { json?: boolean; config?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-demo' });
  const { config } = loadConfig(opts.config);
  const interruption = interrupted();
  let wasInterrupted = false;
  interruption.catch(() => (wasInterrupted = true));
  const agents =
    scenario === 'trip' ? [skywayAir(), harborHotel({ workMs: 800 }), arcticTours({ workMs: 800 })] : [imageStudio({ workMs: 1_000 })];
  const stack = await startStack({ config, logger, server: { uiPort: false }, agents });
  try {
    const connection = await Connection.connect({ address: stack.server.address });
    try {
      const graphs = new GraphClient(connection, {
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        caller: config.caller,
        ...dataConverterOption(config),
      });
      const id = await graphs.start(scenario === 'trip' ? TRIP_TO_HELSINKI : SAILBOAT);
      logger.info({ graphId: id }, 'graph started');
      if (scenario === 'image') {
        await Promise.race([graphs.until(id, (g) => g.nodes.some((n) => n.id === 'sailboat' && n.status !== 'PENDING')), interruption]);
        const added = await Promise.race([graphs.addFollowUp(id, RED_BOAT), interruption]);
        process.stderr.write(`added follow-up ${added.nodeId}: ${JSON.stringify(RED_BOAT.text)} (refines sailboat)\n`);
      }
      const g: GraphRecord = await Promise.race([graphs.result(id), interruption]);
      if (opts.json) printJson(g);
      else process.stdout.write(`\n${formatGraph(g)}\n\n`);
      return g.outcome?.kind === 'ACCEPTED' ? 0 : 3;
    } finally {
      if (!wasInterrupted) await connection.close();
    }
  } finally {
    await stack.stop();
  }
}
