/**
 * `baton worker`: a worker for an existing Temporal server (the production shape).
 */
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../config/load';
import { createLogger, installTemporalRuntime } from '../../runtime/logger';
import { createBatonWorker } from '../../runtime/worker';
import { DEFAULT_ADDRESS } from '../context';

export async function workerCommand(opts: { config?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-worker' });
  const { config } = loadConfig(opts.config);
  installTemporalRuntime(logger);
  const address = config.temporal.address ?? DEFAULT_ADDRESS;
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await createBatonWorker({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      config,
      logger,
    });
    logger.info({ address, taskQueue: config.temporal.taskQueue, agents: Object.keys(config.agents) }, 'worker started');
    await worker.run();
    return 0;
  } finally {
    await connection.close();
  }
}
