/**
 * `baton serve`: the A2A agents Baton offers (`serve.services`), over JSON-RPC, HTTP+JSON and, with
 * `serve.grpc`, gRPC, against an existing Temporal server. Stops on Ctrl-C or SIGTERM.
 */
import { untilStopped } from '../until-stopped';
import { loadConfig } from '../../config/load';
import { createLogger, installTemporalRuntime, releaseTemporalRuntime } from '../../runtime/logger';
import { startTracing } from '../../telemetry/tracing';
import { startServe } from '../../serve/start-serve';

export async function serveCommand(opts: { config?: string; host?: string; port?: number }): Promise<number> {
  const logger = createLogger({ app: 'baton-serve' });
  const { config } = loadConfig(opts.config);
  const tracing = startTracing(config.telemetry, 'serve', logger);
  if (config.telemetry?.metrics?.serve)
    installTemporalRuntime(logger, { metrics: config.telemetry.metrics.serve, metricsSetting: 'telemetry.metrics.serve' });
  const served = await startServe(config, config.temporal, logger, { host: opts.host, port: opts.port });
  logger.info({ url: served.url }, 'serving A2A agents');
  process.stdout.write(
    [
      ...Object.entries(served.agents).map(([name, url]) => `A2A agent ${name} at ${url}  (card: ${url}/.well-known/agent-card.json)`),
      ...(served.grpcAddress ? [`gRPC at ${served.grpcAddress} (each card's GRPC interface names its agent as the tenant)`] : []),
      served.generatedToken
        ? `Callers send Authorization: Bearer ${served.generatedToken}  (acting as ${config.caller.tenant}/${config.caller.user}; configure api.callers for others)`
        : `Callers send Authorization: Bearer <token> with their api.callers tokens (${config.api.callers.length} configured)${config.api.issuers.length ? ` or access tokens from ${config.api.issuers.map((i) => i.issuer).join(', ')}` : ''}.`,
      'Stop: Ctrl-C',
      '',
    ].join('\n'),
  );
  await untilStopped();
  await served.close();
  await tracing?.shutdown();
  await releaseTemporalRuntime();
  return 0;
}
