/**
 * `baton worker`: a worker for an existing Temporal server (the production shape).
 */
import { loadConfig } from '../../config/load';
import { connectTemporalWorker } from '../../runtime/connect';
import { createLogger, installTemporalRuntime } from '../../runtime/logger';
import { requireSearchAttributes } from '../../runtime/namespace-setup';
import { createBatonWorker } from '../../runtime/worker';

export async function workerCommand(opts: { config?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-worker' });
  const { config } = loadConfig(opts.config);
  installTemporalRuntime(logger);
  const connection = await connectTemporalWorker(config.temporal.address);
  try {
    // Every delegation sets Baton's search attributes: without them, each would fail at its first change.
    await requireSearchAttributes(connection, config.temporal.namespace);
    const worker = await createBatonWorker({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      config,
      logger,
    });
    logger.info({ taskQueue: config.temporal.taskQueue, agents: Object.keys(config.agents) }, 'worker started');
    await worker.run();
    return 0;
  } finally {
    await connection.close();
  }
}
