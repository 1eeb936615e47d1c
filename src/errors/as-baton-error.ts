/**
 * The one mapping from errors thrown by the libraries Baton uses (Temporal's client, gRPC, the HTTP
 * server) onto Baton's error kinds. What it does not know is a bug, reported as such by the caller.
 */
import { NamespaceNotFoundError, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { BatonError } from '../shared/baton-error';
import { NamespaceMissingError, NoWorkerError, TemporalRefusedError, TemporalUnavailableError } from './temporal-errors';

/** gRPC status codes Temporal's client reports when the server cannot answer now. */
const GRPC_CANCELLED = 1;
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_FAILED_PRECONDITION = 9;
/** gRPC status codes of a server that refuses who is calling, or what they may do. */
const GRPC_UNAUTHENTICATED = 16;
const GRPC_PERMISSION_DENIED = 7;

/** The messages along `err`'s cause chain. */
function messagesOf(err: unknown): string {
  const said: string[] = [];
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    said.push(String((e as { message?: unknown }).message ?? ''));
  }
  return said.join(' | ');
}

/** Whether the server refused who is calling (gRPC UNAUTHENTICATED or PERMISSION_DENIED), on `err` or a cause. */
export function isRefusal(err: unknown): boolean {
  const code = grpcCodeOf(err);
  return code === GRPC_UNAUTHENTICATED || code === GRPC_PERMISSION_DENIED;
}

/** Whether the server cannot answer now (gRPC UNAVAILABLE or DEADLINE_EXCEEDED), on `err` or a cause. */
export function isUnavailable(err: unknown): boolean {
  const code = grpcCodeOf(err);
  return code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED;
}

/** Whether a call ran out of its own deadline (gRPC DEADLINE_EXCEEDED), on `err` or a cause: a long poll that found nothing. */
export function isDeadlineExceeded(err: unknown): boolean {
  return grpcCodeOf(err) === GRPC_DEADLINE_EXCEEDED;
}

/** The gRPC status code of `err` or of its causes, when it has one. */
export function grpcCodeOf(err: unknown): number | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/** `err` as a BatonError, or undefined when nothing says what it is (a bug). */
export function asBatonError(err: unknown): BatonError | undefined {
  if (err instanceof BatonError) return err;
  // A payload codec's error reaches the caller wrapped by the SDK (a result or a query that cannot be read).
  for (let e = (err as { cause?: unknown })?.cause, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BatonError) return e;
  }
  if (err instanceof NamespaceNotFoundError) return new NamespaceMissingError(err.namespace);
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return new BatonError('Refused', `a workflow with id ${err.workflowId} exists already: nothing was started; choose another id`);
  }
  const code = grpcCodeOf(err);
  // A Query needs a worker on the workflow's task queue; the server says when it has seen none.
  if (code === GRPC_FAILED_PRECONDITION && /poller/i.test(messagesOf(err))) {
    return new NoWorkerError({ cause: err });
  }
  // A worker that went away a moment ago still counts as a poller: the server waits for it and then
  // gives up on the Query ("context canceled").
  if (code === GRPC_CANCELLED && /query workflow/i.test(messagesOf(err))) {
    return new NoWorkerError({ cause: err });
  }
  if (isRefusal(err)) {
    const said =
      messagesOf(err)
        .split(' | ')
        .pop()
        ?.replace(/^\d+ [A-Z_]+: /, '') ?? '';
    return new TemporalRefusedError(
      `Temporal refused the request (${said.replace(/\.$/, '')}): the API key or token (TEMPORAL_API_KEY, temporal.apiKeyFromEnv) is missing, expired or not valid, or lacks the permission for this`,
      { cause: err },
    );
  }
  if (isUnavailable(err)) {
    return new TemporalUnavailableError('Temporal is not answering just now: try again, and check that the server is up', { cause: err });
  }
  // The HTTP server's body parser.
  const type = (err as { type?: unknown } | undefined)?.type;
  if (type === 'entity.too.large') return new BatonError('PayloadTooLarge', 'the request body is larger than 1 MiB');
  if (type === 'entity.parse.failed') return new BatonError('InvalidRequest', 'the request body is not valid JSON');
  return undefined;
}
