/**
 * The embedded stack behind `baton demo` and `baton dev`: a Temporal server (found or started), the
 * demo agents on loopback, and one worker. `stop()` takes it all down in reverse order.
 */
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { loopbackAgentEntry, type BatonConfig } from '../config/schema';
import { startAgentServer, type DemoAgentDefinition, type RunningAgent } from '../demo/agent-server';
import { startPushReceiver, type PushReceiver } from '../push/receiver';
import { Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import { startPendingSampler } from '../telemetry/pending-sampler';
import { installTemporalRuntime } from './logger';
import { startTemporal, type DevServerOptions, type RunningServer } from './temporal-server';
import { createBatonWorker, type BatonWorkerOptions } from './worker';

export interface StackOptions {
  config: BatonConfig;
  logger: Logger;
  server: DevServerOptions;
  /** Demo agents to serve; each is registered in the worker's agent registry under its name. */
  agents: DemoAgentDefinition[];
  /** First port for the demo agents (then +1 each); 0 for free ports. Default 0. */
  agentsPort?: number;
  activityOverrides?: BatonWorkerOptions['activityOverrides'];
  /** Also run the push webhook (on this port; 0 for a free one), and let agents that offer push use it. */
  webhook?: { port: number };
}

export interface RunningStack {
  server: RunningServer;
  agents: RunningAgent[];
  /** The push webhook, when asked for. */
  push?: PushReceiver;
  /** The config as the worker sees it, with the demo agents registered. */
  config: BatonConfig;
  worker: Worker;
  /** Resolves when the worker has stopped (after `stop()` or a shutdown signal). */
  running: Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(opts: StackOptions): Promise<RunningStack> {
  // One process, one Runtime: `baton dev` exports everything on the worker's metrics address.
  const metrics = opts.config.telemetry?.metrics;
  installTemporalRuntime(opts.logger, { metrics: metrics?.worker, metricsSetting: 'telemetry.metrics.worker' });
  const cleanups: (() => Promise<void>)[] = [];
  const unwind = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err: unknown) => opts.logger.warn({ err }, 'cleanup failed'));
    cleanups.length = 0;
  };
  try {
    const server = await startTemporal({
      ...opts.server,
      namespace: opts.config.temporal.namespace,
      configAddress: opts.config.temporal.address,
      logger: opts.logger,
    });
    cleanups.push(() => server.stop());

    const agents: RunningAgent[] = [];
    for (const [i, def] of opts.agents.entries()) {
      const agent = await startAgentServer(def, { port: opts.agentsPort ? opts.agentsPort + i : 0 });
      agents.push(agent);
      cleanups.push(() => agent.close());
    }
    const receiver = opts.webhook
      ? await startPushReceiver(opts.config, server.address, opts.logger, { devDefaults: true, port: opts.webhook.port })
      : undefined;
    if (receiver) cleanups.push(() => receiver.close());
    const config: BatonConfig = {
      ...opts.config,
      ...(receiver ? { push: receiver.push } : {}),
      temporal: { ...opts.config.temporal, address: server.address },
      agents: {
        ...opts.config.agents,
        ...Object.fromEntries(
          agents.map((a, i) => [
            a.name,
            loopbackAgentEntry(a.url, { ...opts.agents[i]?.registry, acceptance: opts.config.agents[a.name]?.acceptance }),
          ]),
        ),
      },
    };

    const connection = await NativeConnection.connect({ address: server.address });
    cleanups.push(() => connection.close());
    const worker = await createBatonWorker({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      config,
      logger: opts.logger,
      activityOverrides: opts.activityOverrides,
    });
    if (metrics?.worker) {
      const stopSampler = startPendingSampler(
        new Client({ connection, namespace: config.temporal.namespace }),
        msToNumber(metrics.pendingEvery),
        opts.logger,
      );
      cleanups.push(() => Promise.resolve(stopSampler()));
    }
    const running = worker.run();
    cleanups.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    let stopping: Promise<void> | undefined;
    return { server, agents, ...(receiver ? { push: receiver } : {}), config, worker, running, stop: () => (stopping ??= unwind()) };
  } catch (err) {
    await unwind();
    throw err;
  }
}
