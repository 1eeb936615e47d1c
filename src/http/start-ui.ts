/**
 * Starts the HTTP API and web app for a config: the callers from `api.callers`, or, when none are
 * configured, one fresh token for the config's caller (then only on a loopback address).
 */
import type { Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { BatonClient } from '../client/baton-client';
import { GraphClient } from '../client/graph-client';
import { ConfigError } from '../config/load';
import { configuredStore } from '../artifacts/configured-store';
import { configuredCodec, dataConverterOption } from '../codec/data-converter';
import { connectTemporalClient } from '../runtime/connect';
import type { TemporalSection } from '../runtime/temporal-target';
import type { BatonConfig } from '../config/schema';
import { startApiServer } from './api-server';
import { CallerTokens } from './caller-tokens';
import { codecTokens } from './codec-server';
import { servedAgentsRouter } from '../serve/served-agents-router';

export interface RunningUi {
  /** The server's base URL. */
  url: string;
  /** With a generated token: the link that signs the browser in (the token in the fragment). */
  signInUrl?: string;
  /** The codec server's endpoint, when it is served (payload encryption on and a codec token set). */
  codecUrl?: string;
  /** The base URL of each A2A agent Baton serves (`serve.services`), by name. */
  servedAgents: Record<string, string>;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startUi(
  config: BatonConfig,
  /** Where Temporal is: the config's `temporal` section (TLS, API key, profile), or a bare address (the dev stack's). */
  temporal: TemporalSection | string | undefined,
  logger: Logger,
  listen: {
    host?: string;
    port?: number;
    /** One more token the codec server accepts (`baton dev` makes one for its Web UI). */
    codecToken?: string;
  } = {},
): Promise<RunningUi> {
  const host = listen.host ?? config.api.listen.host;
  const port = listen.port ?? config.api.listen.port;
  let tokens: CallerTokens;
  let generated: string | undefined;
  if (config.api.callers.length) {
    try {
      tokens = CallerTokens.fromConfig(config.api);
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
  } else {
    if (!LOOPBACK.has(host))
      throw new ConfigError(
        `api.listen.host is ${host}, but no api.callers are configured: list the callers and their tokens (api.callers) before listening beyond loopback`,
      );
    ({ tokens, token: generated } = CallerTokens.single(config.caller));
  }
  const tokensForCodec = codecTokens(config, listen.codecToken);
  const codec = configuredCodec(config);
  const codecServer =
    codec && tokensForCodec.length && config.encryption
      ? {
          codec,
          tokens: tokensForCodec,
          corsOrigins: config.encryption.codecServer.corsOrigins,
          namespace: config.temporal.namespace,
          logger,
        }
      : undefined;
  const connection: Connection = await connectTemporalClient(temporal);
  const opts = {
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    caller: config.caller,
    ...dataConverterOption(config),
  };
  try {
    const baton = new BatonClient(connection, opts);
    const graphs = new GraphClient(connection, opts);
    const artifacts = configuredStore(config, logger.child({ component: 'artifact-store' }));
    let base = '';
    const served = config.serve && Object.keys(config.serve.services).length ? config.serve : undefined;
    const servedAgents = served
      ? servedAgentsRouter({
          serve: served,
          agents: config.agents,
          baton,
          graphs,
          tokens,
          baseUrl: () => served.publicUrl ?? base,
          rateLimit: config.api.rateLimit,
          artifacts,
          logger,
        })
      : undefined;
    const server = await startApiServer({
      baton,
      graphs,
      tokens,
      logger,
      host,
      port,
      rateLimit: config.api.rateLimit,
      artifacts,
      ...(codecServer ? { codec: codecServer } : {}),
      ...(servedAgents ? { servedAgents } : {}),
    });
    base = server.url;
    return {
      url: server.url,
      ...(generated ? { signInUrl: `${server.url}/#token=${generated}` } : {}),
      ...(codecServer ? { codecUrl: `${server.url}/codec` } : {}),
      servedAgents: Object.fromEntries(
        Object.keys(served?.services ?? {}).map((name) => [name, `${(served?.publicUrl ?? server.url).replace(/\/$/, '')}/a2a/${name}`]),
      ),
      close: async () => {
        await server.close();
        await connection.close();
      },
    };
  } catch (err) {
    await connection.close();
    throw err;
  }
}
