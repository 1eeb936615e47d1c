/**
 * The served agents of a config, ready to mount: their HTTP router (for an express app at `/a2a`) and,
 * with `serve.grpc`, their gRPC server. Used by `baton ui` (and so `baton dev`) and `baton serve`.
 */
import { rideOutOf } from '../config/ride-out-config';
import type express from 'express';
import type { Logger } from 'pino';
import type { ArtifactStore } from '../artifacts/store';
import type { BatonClient } from '../client/baton-client';
import type { GraphClient } from '../client/graph-client';
import type { BatonConfig } from '../config/schema';
import type { CallerGate } from '../limits/caller-gate';
import { startServedGrpc, type RunningGrpc } from './grpc-server';
import { ConfigError } from '../config/load';
import { hasConfiguredCallers, isLoopback } from '../auth/listeners';
import { cardSigner, createServedAgents } from './served-agents';
import type { ServedAgent } from './served-agent';
import { servedAgentsRouter } from './served-agents-router';
import { taskIdKey } from '../served-tasks/task-id';
import type { Lookup } from '../a2a/guarded-fetch';

export interface Serving {
  /** Mount at `/a2a`. */
  router: express.Router;
  /** Tells the cards where the HTTP server listens (unless `serve.publicUrl` says). */
  listening(url: string): void;
  /** Each agent's base URL, by name (its card is at `<url>/.well-known/agent-card.json`). */
  urls(): Record<string, string>;
  /** The gRPC address, when served over gRPC. */
  grpcAddress?: string;
  /** The served agents by name: what other front ends (AG-UI) reach the same services through. */
  agents: ReadonlyMap<string, ServedAgent>;
  close(): Promise<void>;
}

export async function prepareServing(
  config: BatonConfig,
  deps: {
    baton: BatonClient;
    graphs: GraphClient;
    gate: CallerGate;
    artifacts?: ArtifactStore;
    logger: Logger;
    /** Resolves callers' webhook host names when they register them. Default: the system's resolver. */
    lookup?: Lookup;
  },
): Promise<Serving | undefined> {
  const serve = config.serve;
  if (!serve || !Object.keys(serve.services).length) return undefined;
  let base = '';
  const baseUrl = () => (serve.publicUrl ?? base).replace(/\/$/, '');
  let grpc: RunningGrpc | undefined;
  const agents = createServedAgents({
    serve,
    agents: config.agents,
    ...(config.dataUse ? { dataUse: config.dataUse } : {}),
    baton: deps.baton,
    graphs: deps.graphs,
    baseUrl,
    ...(serve.signing ? { signer: cardSigner(serve.signing) } : {}),
    security: { bearer: deps.gate.tokens.size > 0, issuers: config.api.issuers },
    grpcAddress: () => (serve.grpc ? (serve.grpc.publicAddress ?? grpc?.address) : undefined),
    ...(deps.artifacts ? { artifacts: deps.artifacts } : {}),
    budget: deps.gate.budget,
    taskIdKey: taskIdKey(serve.taskIdKeyFromEnv, deps.logger),
    rideOut: rideOutOf(config.api),
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
    logger: deps.logger,
  });
  if (serve.grpc) {
    if (!hasConfiguredCallers(config) && !isLoopback(serve.grpc.listen.host))
      throw new ConfigError(
        `serve.grpc.listen.host is ${serve.grpc.listen.host}, but no api.callers, api.issuers or api.signIn are configured: list the callers (api.callers), the identity providers whose tokens they bring (api.issuers) or how operators sign in (api.signIn) before listening beyond loopback`,
      );
    grpc = await startServedGrpc({
      agents,
      gate: deps.gate,
      host: serve.grpc.listen.host,
      port: serve.grpc.listen.port,
      ...(serve.grpc.tls ? { tls: serve.grpc.tls } : {}),
      maxRequestBytes: serve.maxRequestBytes,
      logger: deps.logger,
    });
  }
  return {
    router: servedAgentsRouter(agents, {
      gate: deps.gate,
      maxRequestBytes: serve.maxRequestBytes,
      logger: deps.logger,
    }),
    listening: (url) => {
      base = url;
    },
    agents,
    urls: () => Object.fromEntries([...agents.keys()].map((name) => [name, `${baseUrl()}/a2a/${name}`])),
    ...(grpc ? { grpcAddress: serve.grpc?.publicAddress ?? grpc.address } : {}),
    close: async () => {
      await grpc?.close();
    },
  };
}
