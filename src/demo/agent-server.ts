/**
 * Serves a demo agent over HTTP on loopback with the official SDK: the card at
 * `/.well-known/agent-card.json`, JSON-RPC at `/a2a/jsonrpc` and HTTP+JSON at `/a2a/rest`, both 1.0.
 */
import { traceRequests } from '../telemetry/http-server-span';
import { serviceTracer } from '../telemetry/tracing';
import { closeServer, listen } from '../runtime/listen';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { z } from 'zod';
import type { AgentEntrySchema } from '../config/schema';
import { AGENT_CARD_PATH, AgentCard, type AgentCardSignatureGenerator } from '@a2a-js/sdk';
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type PushNotificationSender,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface DemoAgentDefinition {
  /** Registry name, e.g. `supplier-qa`. */
  name: string;
  description: string;
  skills: { id: string; name: string; description: string; tags: string[]; examples?: string[] }[];
  executor: AgentExecutor;
  streaming?: boolean;
  /** Offer push notifications (CreateTaskPushNotificationConfig; a POST per task event). */
  push?: boolean;
  /** A2A extensions its card declares (`capabilities.extensions`). Default none. */
  extensions?: { uri: string; description?: string; required?: boolean }[];
  /** What its registry entry needs besides the URL when a stack registers it (e.g. the credentials it accepts). */
  registry?: Pick<z.input<typeof AgentEntrySchema>, 'credentials'>;
}

export interface RunningAgent {
  name: string;
  /** Base URL; the registry may name this or the card URL. */
  url: string;
  cardUrl: string;
  close(): Promise<void>;
}

export function demoCard(
  def: DemoAgentDefinition,
  baseUrl: string,
  protocol: '1.0' | '0.3' = '1.0',
  security: AgentServerOptions['cardSecurity'] = undefined,
): AgentCard {
  return AgentCard.fromJSON({
    ...(security ?? {}),
    name: def.name,
    description: def.description,
    version: '0.1.0',
    provider: { organization: 'Baton demo', url: baseUrl },
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: protocol },
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: protocol },
    ],
    capabilities: {
      streaming: def.streaming ?? false,
      pushNotifications: def.push ?? false,
      ...(def.extensions ? { extensions: def.extensions.map((e) => ({ description: '', required: false, ...e })) } : {}),
    },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: def.skills,
  });
}

export interface AgentServerOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 for a free one. Default 0. */
  port?: number;
  /** The URL others reach this agent at, written into its card. Default http://host:port. */
  publicUrl?: string;
  /** Signs the served card (JWS), for agents whose registry entry pins a key. */
  signer?: AgentCardSignatureGenerator;
  /** A credential every A2A call must carry in `Authorization`; the card stays public. */
  requireAuthorization?: string;
  /** Decides whether an A2A call may go on (401 otherwise), e.g. by validating its access token; the card stays public. */
  authorize?: (req: express.Request) => boolean | Promise<boolean>;
  /** Serve over TLS, asking every caller for a client certificate signed by `ca` (mutual TLS). Default: plain http. */
  tls?: { cert: Buffer; key: Buffer; ca: Buffer };
  /** `securitySchemes` and `securityRequirements` for the card, in A2A's JSON form. Default none. */
  cardSecurity?: { securitySchemes: Record<string, unknown>; securityRequirements: unknown[] };
  /**
   * Holds the HTTP response of a JSON-RPC call for the returned number of ms (0: answer at once),
   * after the agent has acted on it: a response lost in transit, for fault tests.
   */
  holdResponse?: (method: string, params: unknown) => number;
  /**
   * Cuts a JSON-RPC stream's connection after the returned number of ms (0: leave it), mid-task:
   * a dropped stream, for fault tests.
   */
  cutStream?: (method: string) => number;
  /** Writes every streamed artifact-update event twice (a duplicated event on the wire), for fault tests. */
  duplicateArtifactEvents?: boolean;
  /**
   * Decides, per push the agent is about to send, to send it, drop it (a lost push) or send it twice
   * (a duplicated push), for fault tests. Default: send.
   */
  pushFault?: (event: unknown) => 'send' | 'drop' | 'duplicate';
  /** Serve the card's interfaces as A2A 0.3 only (JSON-RPC and HTTP+JSON through the SDK's compat layer). */
  protocol?: '1.0' | '0.3';
}

export async function startAgentServer(def: DemoAgentDefinition, opts: AgentServerOptions = {}): Promise<RunningAgent> {
  const host = opts.host ?? '127.0.0.1';
  const app = express();
  // With tracing on, the agent's spans are its own service's, children of the caller's call.
  app.use(traceRequests(def.name, serviceTracer(def.name)));
  // 👉 The SDK's handlers would otherwise parse bodies with express's 100 kB default.
  app.use(express.json({ limit: '10mb', type: ['application/json', 'application/a2a+json'] }));
  const { server, port } = opts.tls
    ? await listenTls(app, host, opts.port ?? 0, opts.tls)
    : await listen(app, host, opts.port ?? 0, '--port, or --agents-port for baton dev');
  // The card names its own URLs, so the handlers are mounted once the port is known.
  const baseUrl = (opts.publicUrl ?? `${opts.tls ? 'https' : 'http'}://${host}:${port}`).replace(/\/$/, '');
  const protocol = opts.protocol ?? '1.0';
  const card = demoCard(def, baseUrl, protocol, opts.cardSecurity);
  const pushStore = def.push ? new InMemoryPushNotificationStore() : undefined;
  const pushSender = pushStore ? faulty(new DefaultPushNotificationSender(pushStore, { timeout: 5_000 }), opts.pushFault) : undefined;
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    def.executor,
    undefined,
    pushStore,
    pushSender,
    undefined,
    opts.signer,
  );
  const legacyCompat = protocol === '0.3' ? { enabled: true } : undefined;
  if (opts.requireAuthorization) {
    const expected = opts.requireAuthorization;
    app.use('/a2a', (req, res, next) =>
      req.headers.authorization === expected ? next() : res.status(401).json({ error: 'unauthorized' }),
    );
  }
  if (opts.authorize) {
    const authorize = opts.authorize;
    app.use('/a2a', (req, res, next) => {
      void Promise.resolve(authorize(req)).then((ok) => (ok ? next() : res.status(401).json({ error: 'unauthorized' })), next);
    });
  }
  if (opts.holdResponse) {
    const hold = opts.holdResponse;
    app.use('/a2a/jsonrpc', (req, res, next) => {
      const body = req.body as { method?: unknown; params?: unknown } | undefined;
      const ms = hold(String(body?.method ?? ''), body?.params);
      if (ms > 0) {
        const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
        res.end = ((...args: unknown[]) => {
          setTimeout(() => end(...args), ms).unref();
          return res;
        }) as typeof res.end;
      }
      next();
    });
  }
  if (opts.cutStream) {
    const cut = opts.cutStream;
    app.use('/a2a/jsonrpc', (req, res, next) => {
      const ms = cut(String((req.body as { method?: unknown } | undefined)?.method ?? ''));
      if (ms > 0) setTimeout(() => res.socket?.destroy(), ms).unref();
      next();
    });
  }
  if (opts.duplicateArtifactEvents) {
    app.use('/a2a/jsonrpc', (_req, res, next) => {
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
        if (text.startsWith('data:') && text.includes('"artifactUpdate"')) write(chunk);
        return write(chunk, ...rest);
      }) as typeof res.write;
      next();
    });
  }
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  return {
    name: def.name,
    url: baseUrl,
    cardUrl: `${baseUrl}/${AGENT_CARD_PATH}`,
    close: () => closeServer(server),
  };
}

/** Listens over TLS, refusing a connection without a client certificate `tls.ca` signed. */
function listenTls(
  app: express.Express,
  host: string,
  port: number,
  tls: { cert: Buffer; key: Buffer; ca: Buffer },
): Promise<{ server: Server; port: number }> {
  const server = createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: true }, app);
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveListen({ server, port: (server.address() as AddressInfo).port }));
  });
}

/** Wraps a push sender so a test can lose or duplicate pushes. */
function faulty(inner: PushNotificationSender, fault: AgentServerOptions['pushFault']): PushNotificationSender {
  if (!fault) return inner;
  return {
    async send(event, context, task) {
      const what = fault(event);
      if (what === 'drop') return;
      await inner.send(event, context, task);
      if (what === 'duplicate') await inner.send(event, context, task);
    },
  };
}
