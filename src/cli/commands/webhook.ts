/**
 * `baton webhook`: the push receiver on its own, for a deployment where agents reach it at the
 * config's `push.url` and workers run elsewhere. Stops on Ctrl-C or SIGTERM.
 */
import { untilStopped } from '../until-stopped';
import { loadConfig } from '../../config/load';
import { startPushReceiver } from '../../push/receiver';
import { createLogger, installTemporalRuntime, releaseTemporalRuntime } from '../../runtime/logger';
import { startTracing } from '../../telemetry/tracing';

export async function webhookCommand(opts: { config?: string }): Promise<number> {
  const logger = createLogger({ app: 'baton-webhook' });
  const { config } = loadConfig(opts.config);
  const tracing = startTracing(config.telemetry, 'webhook', logger);
  if (config.telemetry?.metrics?.webhook)
    installTemporalRuntime(logger, { metrics: config.telemetry.metrics.webhook, metricsSetting: 'telemetry.metrics.webhook' });
  const receiver = await startPushReceiver(config, config.temporal, logger);
  logger.info({ listening: receiver.webhook.url, publicUrl: receiver.push.url }, 'webhook started');
  process.stderr.write(
    `Webhook listening at ${receiver.webhook.url}; agents push to ${receiver.push.url}/push/<delegation id> (Ctrl-C stops it)\n`,
  );
  await untilStopped();
  await receiver.close();
  await tracing?.shutdown();
  await releaseTemporalRuntime();
  return 0;
}
