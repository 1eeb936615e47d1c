/**
 * `baton dev`: the embedded stack that stays up until Ctrl-C or SIGTERM. The dev server keeps its
 * SQLite file under `.baton/dev/`, so a restart still shows earlier workflows.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../config/load';
import type { BatonConfig } from '../../config/schema';
import { demoAgents } from '../../demo/catalog';
import { demoServe, DEV_PUSH_KEY_ENV, DEV_SELF_TOKEN_ENV, selfAgentEntry } from '../../demo/served-demo';
import { createLogger } from '../../runtime/logger';
import { projectRoot } from '../../runtime/project-root';
import { startStack } from '../../runtime/stack';
import { startTracing } from '../../telemetry/tracing';
import { startUi, type RunningUi } from '../../http/start-ui';
import { reservePort } from '../../runtime/port-reservation';
import { describeSource } from '../../runtime/temporal-server';

export interface DevOptions {
  config?: string;
  port: number;
  uiPort: number;
  agentsPort: number;
  /** Port of the push webhook. */
  webhookPort: number;
  /** Port of the web app and HTTP API. Default: the config's `api.listen.port`. */
  appPort?: number;
  /** SQLite file of the dev server. Default `.baton/dev/temporal.sqlite`. */
  db?: string;
}

export async function devCommand(opts: DevOptions): Promise<number> {
  const logger = createLogger({ app: 'baton-dev' });
  const { config, path } = loadConfig(opts.config);
  const dbFile = opts.db ?? join(projectRoot(), '.baton', 'dev', 'temporal.sqlite');
  const chosenPort = opts.appPort ?? config.api.listen.port;
  const reserved = chosenPort ? undefined : await reservePort();
  const appPort = reserved?.port ?? chosenPort;
  // With encryption on, the Web UI decodes through the web app's codec server. The dev Web UI sends
  // no Authorization header, so its endpoint carries a token made for this run in its path.
  const codecToken = config.encryption ? randomBytes(24).toString('base64url') : undefined;
  const codecEndpoint = codecToken ? `http://127.0.0.1:${appPort}/codec/${codecToken}` : undefined;
  // With nothing served and no callers configured, dev serves Baton's demo agents and calls one itself.
  const selfServe = !config.serve && !config.api.callers.length && !config.api.issuers.length;
  const callerToken = selfServe ? randomBytes(24).toString('base64url') : undefined;
  if (callerToken) process.env[DEV_SELF_TOKEN_ENV] = callerToken;
  if (selfServe) process.env[DEV_PUSH_KEY_ENV] ??= randomBytes(32).toString('base64');
  const devConfig: BatonConfig = selfServe
    ? { ...config, serve: demoServe(), agents: { ...config.agents, 'baton-qa': selfAgentEntry(appPort) } }
    : config;
  // Served task ids stay the same, and MCP sessions go on, across restarts of dev: their keys are kept beside its database.
  if (devConfig.serve) keepKey(devConfig.serve.taskIdKeyFromEnv, join(dirname(dbFile), 'serve-task-id.key'));
  keepKey(devConfig.api.mcpSessionKeyFromEnv, join(dirname(dbFile), 'mcp-session.key'));
  const tracing = startTracing(config.telemetry, 'dev', logger);
  const stack = await startStack({
    config: devConfig,
    logger,
    server: { port: opts.port, uiPort: opts.uiPort, dbFile, ...(codecEndpoint ? { codecEndpoint } : {}) },
    agents: demoAgents(),
    agentsPort: opts.agentsPort,
    webhook: { port: opts.webhookPort },
  }).catch(async (err: unknown) => {
    await reserved?.release();
    throw err;
  });

  let ui: RunningUi;
  try {
    await reserved?.release();
    ui = await startUi(withWebUiOrigin(stack.config, stack.server.uiUrl), stack.server.address, logger, {
      port: appPort,
      ...(codecToken ? { codecToken } : {}),
      ...(callerToken ? { callerToken } : {}),
    });
  } catch (err) {
    await stack.stop();
    throw err;
  }

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = true;
    process.stderr.write(`\n${signal}: stopping web app, worker, agents and Temporal…\n`);
    void ui.close().finally(() => stack.stop());
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const lines = [
    'Baton dev stack is up.',
    `  Temporal     ${stack.server.address}  (${describeSource(stack.server.source)})`,
    ...(stack.server.uiUrl ? [`  Web UI       ${stack.server.uiUrl}`] : []),
    `  Database     ${stack.server.source.kind === 'address' ? '(existing server)' : dbFile}`,
    `  Task queue   ${config.temporal.taskQueue}`,
    `  Config       ${path ?? '(built-in defaults)'}`,
    `  Web app      ${ui.signInUrl ?? ui.url}`,
    `  HTTP API     ${ui.url}/api/v1  (OpenAPI: ${ui.url}/api/v1/openapi.json)`,
    ...(config.api.agui.enabled ? [`  AG-UI        ${ui.url}/agui/agents/<agent>  (and /agui/graphs, /agui/served/<service>)`] : []),
    ...(ui.codecUrl ? [`  Codec server ${ui.codecUrl}  (payloads are encrypted; the Web UI decodes through it)`] : []),
    ...(stack.push ? [`  Webhook      ${stack.push.webhook.url}/push/<delegation id>  (skyway-air pushes)`] : []),
    ...stack.agents.map((a) => `  Agent        ${a.name.padEnd(12)} ${a.url}`),
    ...(config.telemetry?.metrics?.worker ? [`  Metrics      http://${config.telemetry.metrics.worker}/metrics`] : []),
    ...(tracing ? [`  Traces       as ${tracing.serviceName} (and each demo agent as itself), over OTLP`] : []),
    ...Object.entries(ui.servedAgents).map(
      ([name, url]) => `  Serves A2A   ${name.padEnd(12)} ${url}  (card: ${url}/.well-known/agent-card.json)`,
    ),
    '',
    'Try:  npx baton delegate --agent supplier-qa --text "Verify inspection-92 against order A1042, product SN-4471" --wait',
    '      npx baton delegate --agent portal-gate --text "Stock for BOLT-M8?"   then   npx baton authorize <id> --credential portal',
    '      (the credential portal is PORTAL_TOKEN on the worker: start dev with PORTAL_TOKEN=portal-demo-token)',
    ...(selfServe
      ? [
          '      npx baton delegate --agent baton-qa --text "Verify inspection-92 against order A1042, product SN-4471" --wait',
          '      (baton-qa is Baton itself, serving A2A: a delegation to supplier-qa behind it)',
        ]
      : []),
    'Stop: Ctrl-C',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  // The worker's run() ends when the Runtime's own signal handling or stop() shuts it down.
  await stack.running.catch((err: unknown) => logger.error({ err }, 'worker stopped with an error'));
  await ui.close();
  await stack.stop();
  await tracing?.shutdown();
  process.stderr.write('stopped.\n');
  return 0;
}

/** The config with the dev Web UI allowed to call the codec server from the browser. */
function withWebUiOrigin(config: BatonConfig, uiUrl: string | undefined): BatonConfig {
  if (!config.encryption || !uiUrl) return config;
  const port = new URL(uiUrl).port;
  const corsOrigins = [...config.encryption.codecServer.corsOrigins, `http://127.0.0.1:${port}`, `http://localhost:${port}`];
  return { ...config, encryption: { ...config.encryption, codecServer: { ...config.encryption.codecServer, corsOrigins } } };
}

/** Sets `variable` (unless set) to the key kept in `file`, made once. */
function keepKey(variable: string, file: string): void {
  if (process.env[variable]) return;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  process.env[variable] = readFileSync(file, 'utf8').trim();
}
