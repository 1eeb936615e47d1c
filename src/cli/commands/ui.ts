/**
 * `baton ui`: the web app (inbox, delegation and graph pages) and the HTTP API it uses, against an
 * existing Temporal server. Stops on Ctrl-C or SIGTERM.
 */
import { untilStopped } from '../until-stopped';
import { loadConfig } from '../../config/load';
import { startUi } from '../../http/start-ui';
import { createLogger, installTemporalRuntime, releaseTemporalRuntime } from '../../runtime/logger';
import { startTracing } from '../../telemetry/tracing';

export async function uiCommand(opts: { config?: string; host?: string; port?: number }): Promise<number> {
  const logger = createLogger({ app: 'baton-ui' });
  const { config } = loadConfig(opts.config);
  const tracing = startTracing(config.telemetry, 'ui', logger);
  if (config.telemetry?.metrics?.ui)
    installTemporalRuntime(logger, { metrics: config.telemetry.metrics.ui, metricsSetting: 'telemetry.metrics.ui' });
  const ui = await startUi(config, config.temporal, logger, { host: opts.host, port: opts.port });
  logger.info({ url: ui.url }, 'ui started');
  process.stdout.write(
    [
      `Baton web app and API at ${ui.url}  (API: ${ui.url}/api/v1, described by ${ui.url}/api/v1/openapi.json)`,
      ...(config.api.mcp !== false ? [`MCP (Streamable HTTP) at ${ui.url}/mcp, for the same callers and tokens`] : []),
      ...(config.api.agui.enabled
        ? [`AG-UI at ${ui.url}/agui/agents/<agent>, /agui/graphs and /agui/served/<service>, for the same callers and tokens`]
        : []),
      ui.signInUrl
        ? `Sign in as ${config.caller.tenant}/${config.caller.user}: ${ui.signInUrl}`
        : `Callers sign in with their api.callers tokens (${config.api.callers.length} configured)${config.api.issuers.length ? ` or access tokens from ${config.api.issuers.map((i) => i.issuer).join(', ')}` : ''}.`,
      ...(config.api.signIn?.oidc
        ? [`Operators sign in with OpenID Connect (${config.api.signIn.oidc.issuer}) at ${ui.url}/auth/oidc/start`]
        : []),
      ...(ui.codecUrl
        ? [`Codec server at ${ui.codecUrl}  (for the Temporal Web UI and temporal --codec-endpoint, with a codec token)`]
        : config.encryption
          ? [
              `Payloads are encrypted; the codec server is off: set ${config.encryption.codecServer.tokensFromEnv.join(' or ')} to serve ${ui.url}/codec`,
            ]
          : []),
      ...Object.entries(ui.servedAgents).map(
        ([name, url]) =>
          `Serves A2A agent ${name} at ${url}  (card: ${url}/.well-known/agent-card.json; callers use their api.callers tokens)`,
      ),
      ...(ui.servedGrpc
        ? [`Serves the A2A agents over gRPC at ${ui.servedGrpc} (the card's GRPC interface names each as the tenant)`]
        : []),
      'Stop: Ctrl-C',
      '',
    ].join('\n'),
  );
  await untilStopped();
  await ui.close();
  await tracing?.shutdown();
  await releaseTemporalRuntime();
  return 0;
}
