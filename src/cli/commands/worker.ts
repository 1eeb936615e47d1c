/**
 * `baton worker`: a worker for an existing Temporal server (the production shape).
 */
import { getHeapStatistics } from 'node:v8';
import { Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import { InvalidRequestError } from '../../client/errors';
import { describeIssues, loadConfig } from '../../config/load';
import { DeploymentSchema } from '../../config/schema';
import { connectTemporalWorker } from '../../runtime/connect';
import { createLogger, installTemporalRuntime } from '../../runtime/logger';
import { requireSearchAttributes } from '../../client/namespace-setup';
import { createBatonWorker } from '../../runtime/worker';
import { startPendingSampler } from '../../telemetry/pending-sampler';
import { startTracing } from '../../telemetry/tracing';
import { configuredBudget } from '../../limits/configured-budget';
import { checkEndpoint, EndpointMisdirectedError } from '../../nexus/endpoint-setup';
import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';

export async function workerCommand(opts: { config?: string; buildId?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-worker' });
  const { config } = loadConfig(opts.config);
  if (opts.buildId !== undefined) {
    const parsed = DeploymentSchema.safeParse({ ...config.worker.deployment, buildId: opts.buildId });
    if (!parsed.success)
      throw new InvalidRequestError(`--build-id ${JSON.stringify(opts.buildId)}: ${describeIssues(parsed.error).join('; ')}`);
    config.worker.deployment = parsed.data;
  }
  const tracing = startTracing(config.telemetry, 'worker', logger);
  const metrics = config.telemetry?.metrics;
  installTemporalRuntime(logger, { metrics: metrics?.worker, metricsSetting: 'telemetry.metrics.worker' });
  const connection = await connectTemporalWorker(config.temporal);
  let stopSampler: (() => void) | undefined;
  // Nexus callers' starts count in the budget every replica of baton ui shares (api.limits.store).
  const nexusBudget = config.nexus ? configuredBudget(config.api) : undefined;
  try {
    // Every delegation sets Baton's search attributes: without them, each would fail at its first change.
    await requireSearchAttributes(connection, config.temporal.namespace);
    const worker = await createBatonWorker({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      config,
      logger,
      ...(nexusBudget ? { nexusBudget } : {}),
    });
    const deployment = config.worker.deployment;
    logger.info(
      {
        taskQueue: config.temporal.taskQueue,
        agents: Object.keys(config.agents),
        // Each V8 heap's cap (`--max-heap`, or a heap flag given to Node).
        heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
        ...(tracing ? { tracesAs: tracing.serviceName } : {}),
        ...(deployment ? { deployment: deployment.name, buildId: deployment.buildId, behavior: deployment.behavior } : {}),
        ...(config.nexus ? { nexusEndpoint: config.nexus.endpoint, nexusCallers: config.nexus.callers.map((c) => c.namespace) } : {}),
      },
      'worker started',
    );
    if (config.nexus) await warnOfEndpoint(connection, config.nexus.endpoint, config.temporal, logger);
    if (metrics?.worker)
      stopSampler = startPendingSampler(
        new Client({ connection, namespace: config.temporal.namespace }),
        msToNumber(metrics.pendingEvery),
        logger,
      );
    await worker.run();
    return 0;
  } finally {
    stopSampler?.();
    await nexusBudget?.close();
    await tracing?.shutdown();
    await connection.close();
  }
}

/** A worker serving Nexus says at start when its endpoint is missing or sends operations elsewhere. */
async function warnOfEndpoint(
  connection: NativeConnection,
  endpoint: string,
  target: { namespace: string; taskQueue: string },
  logger: Logger,
): Promise<void> {
  try {
    if (!(await checkEndpoint(connection, endpoint, target)))
      logger.warn(
        { endpoint },
        `Nexus endpoint ${endpoint} does not exist: no caller reaches this worker until baton setup --nexus creates it`,
      );
  } catch (err) {
    if (err instanceof EndpointMisdirectedError) logger.warn({ endpoint }, err.message);
    // A worker may not be allowed to read endpoints (an operator's right): it serves all the same.
    else logger.debug({ err }, 'could not read the Nexus endpoint');
  }
}
