/**
 * The served agents over gRPC (the A2A 1.0 binding, the official SDK's service). One server serves
 * them all: each card's gRPC interface names its agent as the interface's `tenant`, which the client
 * sends in every request. Callers authenticate with the same bearer tokens, in `authorization` metadata.
 */
import * as grpc from '@grpc/grpc-js';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { traceGrpcService } from '../telemetry/grpc-server-span';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load';
import type { CallerTokens } from '../http/caller-tokens';
import { RateLimiter, retryAfterSeconds } from '../http/rate-limit';
import { CallerUser, type ServedAgent } from './served-agent';

/** Routes each call to the served agent its request's tenant names. */
class TenantDispatch implements A2ARequestHandler {
  constructor(private readonly agents: Map<string, ServedAgent>) {}

  private pick(context: ServerCallContext): ServedAgent {
    const agent = this.agents.get(context.tenant ?? '');
    if (!agent)
      throw new RequestMalformedError(
        `no served agent "${context.tenant ?? ''}": send the tenant of the card's GRPC interface (one of: ${[...this.agents.keys()].join(', ')})`,
      );
    return agent;
  }

  // The SDK checks the requested protocol version against any card's gRPC interfaces: all list 1.0.
  getAgentCard() {
    return [...this.agents.values()][0]!.getAgentCard();
  }
  getAuthenticatedExtendedAgentCard(_p: GetExtendedAgentCardRequest, c: ServerCallContext) {
    return this.pick(c).getAuthenticatedExtendedAgentCard();
  }
  sendMessage(p: SendMessageRequest, c: ServerCallContext) {
    return this.pick(c).sendMessage(p, c);
  }
  sendMessageStream(p: SendMessageRequest, c: ServerCallContext) {
    return this.pick(c).sendMessageStream(p, c);
  }
  getTask(p: GetTaskRequest, c: ServerCallContext) {
    return this.pick(c).getTask(p, c);
  }
  cancelTask(p: CancelTaskRequest, c: ServerCallContext) {
    return this.pick(c).cancelTask(p, c);
  }
  listTasks(p: ListTasksRequest, c: ServerCallContext) {
    return this.pick(c).listTasks(p, c);
  }
  resubscribe(p: SubscribeToTaskRequest, c: ServerCallContext) {
    return this.pick(c).resubscribe(p, c);
  }
  createTaskPushNotificationConfig(p: TaskPushNotificationConfig, c: ServerCallContext) {
    return this.pick(c).createTaskPushNotificationConfig(p, c);
  }
  getTaskPushNotificationConfig(p: GetTaskPushNotificationConfigRequest, c: ServerCallContext) {
    return this.pick(c).getTaskPushNotificationConfig(p, c);
  }
  listTaskPushNotificationConfigs(p: ListTaskPushNotificationConfigsRequest, c: ServerCallContext) {
    return this.pick(c).listTaskPushNotificationConfigs(p, c);
  }
  deleteTaskPushNotificationConfig(p: DeleteTaskPushNotificationConfigRequest, c: ServerCallContext) {
    return this.pick(c).deleteTaskPushNotificationConfig(p, c);
  }
}

export interface ServedGrpcOptions {
  agents: Map<string, ServedAgent>;
  tokens: CallerTokens;
  rateLimit: { requestsPerMinute: number; burst: number };
  host: string;
  /** 0 for a free one. */
  port: number;
  /** PEM files of the server's certificate and key; unset: plaintext (loopback, or behind a TLS proxy). */
  tls?: { certFile: string; keyFile: string };
  /** Largest request message, in bytes (`serve.maxRequestBytes`). */
  maxRequestBytes: number;
  logger: Logger;
}

export interface RunningGrpc {
  /** host:port it listens on. */
  address: string;
  close(): Promise<void>;
}

const authorizationOf = (metadata: grpc.Metadata): string | undefined => metadata.get('authorization')[0]?.toString();

export async function startServedGrpc(opts: ServedGrpcOptions): Promise<RunningGrpc> {
  const limiter = new RateLimiter({ perMinute: opts.rateLimit.requestsPerMinute, burst: opts.rateLimit.burst });
  // Refused before the SDK's service sees the call: UNAUTHENTICATED and RESOURCE_EXHAUSTED are gRPC's own answers.
  const gate: grpc.ServerInterceptor = (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, passOn) => {
            const caller = opts.tokens.callerFor(authorizationOf(metadata));
            if (!caller)
              return call.sendStatus({
                code: grpc.status.UNAUTHENTICATED,
                details: 'send authorization: Bearer <token> with a token Baton issued',
                metadata: new grpc.Metadata(),
              });
            const taken = limiter.take(`${caller.tenant}/${caller.user}`);
            if (!taken.ok)
              return call.sendStatus({
                code: grpc.status.RESOURCE_EXHAUSTED,
                details: `too many requests; try again in ${retryAfterSeconds(taken.retryAfterMs)} s`,
                metadata: new grpc.Metadata(),
              });
            passOn(metadata);
          },
        }),
    });
  const server = new grpc.Server({ interceptors: [gate], 'grpc.max_receive_message_length': opts.maxRequestBytes });
  server.addService(
    A2AService,
    traceGrpcService(
      grpcService({
        requestHandler: new TenantDispatch(opts.agents),
        userBuilder: (call) => {
          const caller = opts.tokens.callerFor(authorizationOf(call.metadata));
          // The gate let only known tokens through.
          return caller ? Promise.resolve(new CallerUser(caller)) : Promise.reject(new Error('unauthenticated'));
        },
      }),
    ),
  );
  let credentials = grpc.ServerCredentials.createInsecure();
  if (opts.tls) {
    const { readFileSync } = await import('node:fs');
    credentials = grpc.ServerCredentials.createSsl(null, [
      { cert_chain: readFileSync(opts.tls.certFile), private_key: readFileSync(opts.tls.keyFile) },
    ]);
  }
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const port = await new Promise<number>((resolvePort, reject) =>
    server.bindAsync(`${host}:${opts.port}`, credentials, (err, bound) =>
      err
        ? reject(
            new ConfigError(`gRPC cannot listen on ${host}:${opts.port} (${err.message}): choose another port (serve.grpc.listen.port)`),
          )
        : resolvePort(bound),
    ),
  );
  opts.logger.info({ host: opts.host, port }, 'served agents listen over gRPC');
  return {
    address: `${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.tryShutdown(() => resolveClose());
        // Open streams would hold a graceful shutdown: they end with the server.
        setTimeout(() => server.forceShutdown(), 2_000).unref();
      }),
  };
}
