/**
 * Starts the HTTP API and web app for a config: the callers from `api.callers`, or, when none are
 * configured, one fresh token for the config's caller (then only on a loopback address).
 */
import { rideOutOf } from '../config/ride-out-config';
import { MCP_SESSION_KEY } from '../mcp/session-id';
import { sharedKey } from '../config/shared-key';
import type { Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { configuredClients } from '../client/configured-clients';
import { configuredCodec } from '../codec/data-converter';
import { connectTemporalClient } from '../runtime/connect';
import type { TemporalSection } from '../config/temporal-target';
import type { BatonConfig } from '../config/schema';
import { startApiServer } from './api-server';
import { codecTokens } from './codec-server';
import { prepareServing } from '../serve/serving';
import { callerTokensFor, isLoopback } from '../auth/listeners';
import { publicJwks } from '../serve/signing-key';
import { OidcSignIn } from './oidc-sign-in';
import { CallerGate } from '../limits/caller-gate';
import { configuredBudget } from '../limits/configured-budget';

export interface RunningUi {
  /** The server's base URL. */
  url: string;
  /** With a generated token: the link that signs the browser in (the token in the fragment). */
  signInUrl?: string;
  /** The codec server's endpoint, when it is served (payload encryption on and a codec token set). */
  codecUrl?: string;
  /** The base URL of each A2A agent Baton serves (`serve.services`), by name. */
  servedAgents: Record<string, string>;
  /** The gRPC address of the served agents (`serve.grpc`). */
  servedGrpc?: string;
  close(): Promise<void>;
}

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
    /** Without api.callers: the config caller's token (`baton dev` makes it first, for its own served agent). */
    callerToken?: string;
  } = {},
): Promise<RunningUi> {
  const host = listen.host ?? config.api.listen.host;
  const port = listen.port ?? config.api.listen.port;
  const { callers, generated } = callerTokensFor(config, host, 'api.listen.host', listen.callerToken, (why) =>
    logger.warn({ why }, 'a JWT was refused'),
  );
  const tokensForCodec = codecTokens(config, listen.codecToken);
  const codec = configuredCodec(config);
  const codecServer =
    codec && tokensForCodec.length && config.encryption
      ? {
          codec,
          tokens: tokensForCodec,
          corsOrigins: config.encryption.codecServer.corsOrigins,
          namespace: config.temporal.namespace,
          maxRequestBytes: config.encryption.codecServer.maxRequestBytes,
          logger,
        }
      : undefined;
  // One budget per caller for every surface of this process (and, with a shared store, of every replica).
  const gate = new CallerGate(callers, configuredBudget(config.api));
  const connection: Connection = await connectTemporalClient(temporal).catch(async (err: unknown) => {
    await gate.budget.close();
    throw err;
  });
  try {
    const { baton, graphs, artifacts } = configuredClients(connection, config, logger);
    const serving = await prepareServing(config, { baton, graphs, gate, artifacts, logger });
    let base = '';
    const oidc = config.api.signIn?.oidc;
    const signing = config.serve?.signing;
    const server = await startApiServer({
      baton,
      graphs,
      tokens: callers,
      logger,
      ...(oidc
        ? {
            signIn: new OidcSignIn(oidc, {
              baseUrl: () => base,
              // Behind a proxy that terminates TLS the listener is loopback, but the callback URL says https.
              secureCookie: !isLoopback(host) || oidc.redirectUrl?.startsWith('https:') === true,
              logger,
              budget: gate.budget,
            }),
          }
        : {}),
      ...(signing ? { jwks: () => Promise.resolve(publicJwks(signing)) } : {}),
      host,
      port,
      budget: gate.budget,
      trustProxy: config.api.trustProxy,
      rideOut: rideOutOf(config.api),
      artifacts,
      ...(config.api.mcp !== false
        ? { mcp: { agents: config.agents, sessionKey: sharedKey(config.api.mcpSessionKeyFromEnv, MCP_SESSION_KEY, logger) } }
        : {}),
      ...(codecServer ? { codec: { ...codecServer, budget: gate.budget } } : {}),
      ...(serving ? { servedAgents: serving.router } : {}),
      ...(config.api.agui.enabled
        ? { agui: { agents: config.agents, corsOrigins: config.api.agui.corsOrigins, ...(serving ? { served: serving.agents } : {}) } }
        : {}),
    }).catch(async (err: unknown) => {
      await serving?.close();
      throw err;
    });
    base = server.url;
    serving?.listening(server.url);
    return {
      url: server.url,
      ...(generated ? { signInUrl: `${server.url}/#token=${generated}` } : {}),
      ...(codecServer ? { codecUrl: `${server.url}/codec` } : {}),
      servedAgents: serving?.urls() ?? {},
      ...(serving?.grpcAddress ? { servedGrpc: serving.grpcAddress } : {}),
      close: async () => {
        await serving?.close();
        await server.close();
        await connection.close();
        await gate.budget.close();
      },
    };
  } catch (err) {
    await connection.close();
    await gate.budget.close();
    throw err;
  }
}
