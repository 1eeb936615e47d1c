/**
 * `baton serve`: the served A2A agents alone (no web app, no HTTP API), against an existing Temporal
 * server, for deployments that expose them apart from the operators' tools.
 */
import express from 'express';
import type { Logger } from 'pino';
import { configuredClients } from '../client/configured-clients';
import { ConfigError } from '../config/load';
import type { BatonConfig } from '../config/schema';
import { callerTokensFor } from '../auth/listeners';
import { publicJwks } from './signing-key';
import { connectTemporalClient } from '../runtime/connect';
import { closeServer, listen } from '../runtime/listen';
import type { TemporalSection } from '../config/temporal-target';
import { prepareServing } from './serving';
import { CallerGate } from '../limits/caller-gate';
import { configuredBudget } from '../limits/configured-budget';

export interface RunningServe {
  /** The HTTP server's base URL. */
  url: string;
  /** Each agent's base URL, by name. */
  agents: Record<string, string>;
  grpcAddress?: string;
  /** With no api.callers: the token generated for the config's caller. */
  generatedToken?: string;
  close(): Promise<void>;
}

export async function startServe(
  config: BatonConfig,
  temporal: TemporalSection | string | undefined,
  logger: Logger,
  at: { host?: string; port?: number } = {},
): Promise<RunningServe> {
  if (!config.serve || !Object.keys(config.serve.services).length)
    throw new ConfigError('there is nothing to serve: name the A2A agents Baton offers under serve.services (docs/serving-a2a.md)');
  const host = at.host ?? config.serve.listen.host;
  const port = at.port ?? config.serve.listen.port;
  const { callers, generated } = callerTokensFor(config, host, 'serve.listen.host', undefined, (why) =>
    logger.warn({ why }, 'a JWT was refused'),
  );
  // One budget per caller for both bindings of this process (and, with a shared store, of every replica).
  const gate = new CallerGate(callers, configuredBudget(config.api));
  const connection = await connectTemporalClient(temporal).catch(async (err: unknown) => {
    await gate.budget.close();
    throw err;
  });
  try {
    const { baton, graphs, artifacts } = configuredClients(connection, config, logger);
    const serving = await prepareServing(config, { baton, graphs, gate, artifacts, logger });
    if (!serving) throw new ConfigError('there is nothing to serve: name the A2A agents Baton offers under serve.services');
    const app = express();
    app.disable('x-powered-by');
    app.set('trust proxy', config.api.trustProxy);
    app.use('/a2a', serving.router);
    const signing = config.serve.signing;
    if (signing) app.get('/.well-known/jwks.json', (_req, res) => void res.json(publicJwks(signing)));
    app.use(
      (_req, res) =>
        void res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: 'the served agents are under /a2a/<name>' } }),
    );
    const started = await listen(app, host, port, 'serve.listen.port, or --port').catch(async (err: unknown) => {
      await serving.close();
      throw err;
    });
    const shown = host.includes(':') ? `[${host}]` : host;
    const url = `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${started.port}`;
    serving.listening(url);
    return {
      url,
      agents: serving.urls(),
      ...(serving.grpcAddress ? { grpcAddress: serving.grpcAddress } : {}),
      ...(generated ? { generatedToken: generated } : {}),
      close: async () => {
        await serving.close();
        await closeServer(started.server);
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
