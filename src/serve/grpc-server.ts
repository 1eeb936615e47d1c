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
import { asBatonError } from '../errors/as-baton-error';
import type { Lease } from '../limits/budget-store';
import { RateLimitedError } from '../limits/caller-budget';
import { requirePermission, type CallerGate } from '../limits/caller-gate';
import { grpcUse, takeServedUse } from '../limits/served-request';
import { grpcPermission, type Principal } from '../auth/permissions';
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
  /** Who may call, and what each caller may use (shared with the process's other surfaces). */
  gate: CallerGate;
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

/** The address of a gRPC peer (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`), without its port. */
export function peerAddress(peer: string): string {
  const at = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]/.exec(at);
  return bracketed ? (bracketed[1] as string) : at.replace(/:\d+$/, '');
}

/** A refusal as gRPC says it: the status, and for a budget, how long to wait (`retry-after` trailer, seconds). */
function refusal(err: unknown): grpc.StatusObject {
  const metadata = new grpc.Metadata();
  if (err instanceof RateLimitedError) {
    metadata.set('retry-after', String(err.retryAfterSeconds));
    return { code: grpc.status.RESOURCE_EXHAUSTED, details: err.message, metadata };
  }
  const known = asBatonError(err);
  if (known?.kind === 'Unauthorized')
    return { code: grpc.status.UNAUTHENTICATED, details: 'send authorization: Bearer <token> with a token Baton issued', metadata };
  if (known?.kind === 'InvalidRequest') return { code: grpc.status.INVALID_ARGUMENT, details: known.message, metadata };
  if (known?.kind === 'Forbidden') return { code: grpc.status.PERMISSION_DENIED, details: known.message, metadata };
  return { code: grpc.status.INTERNAL, details: 'internal error (see the server log)', metadata };
}

export async function startServedGrpc(opts: ServedGrpcOptions): Promise<RunningGrpc> {
  const { gate } = opts;
  const callers = new WeakMap<grpc.Metadata, Principal>();
  // Refused before the SDK's service sees the call: UNAUTHENTICATED and RESOURCE_EXHAUSTED are gRPC's own answers.
  const interceptor: grpc.ServerInterceptor = (method, call) => {
    let principal: Principal | undefined;
    let lease: Lease | undefined;
    const release = (): void => {
      void lease?.release();
      lease = undefined;
    };
    const refuse = (err: unknown): void => {
      if (!(err instanceof RateLimitedError) && !asBatonError(err)) opts.logger.error({ err }, 'served gRPC call could not be admitted');
      call.sendStatus(refusal(err));
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, passOn) => {
            void gate.admit(authorizationOf(metadata), peerAddress(call.getPeer())).then((admitted) => {
              principal = admitted;
              callers.set(metadata, admitted);
              passOn(metadata);
            }, refuse);
          },
          // What the call starts or holds, from its decoded request, before the SDK's handler runs.
          onReceiveMessage: (message, passOn) => {
            const agent = opts.agents.get(String((message as { tenant?: unknown }).tenant ?? ''));
            if (!principal) return passOn(message);
            try {
              requirePermission(principal, grpcPermission(method.path, message));
            } catch (err) {
              return refuse(err);
            }
            void takeServedUse(gate.budget, principal.caller, grpcUse(method.path, message), agent?.workCost ?? 1).then((held) => {
              lease = held;
              passOn(message);
            }, refuse);
          },
          onCancel: release,
        }),
      sendStatus: (status, next) => {
        release();
        next(status);
      },
    });
  };
  const server = new grpc.Server({ interceptors: [interceptor], 'grpc.max_receive_message_length': opts.maxRequestBytes });
  server.addService(
    A2AService,
    traceGrpcService(
      grpcService({
        requestHandler: new TenantDispatch(opts.agents),
        userBuilder: (call) => {
          // The interceptor let only admitted callers through, and kept who each was.
          const admitted = callers.get(call.metadata);
          if (!admitted) return Promise.reject(new Error('unauthenticated'));
          // A cancelled call (the caller went away) ends whatever still waits for it.
          const gone = new AbortController();
          call.once('cancelled', () => gone.abort());
          return Promise.resolve(new CallerUser(admitted.caller, gone.signal));
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
