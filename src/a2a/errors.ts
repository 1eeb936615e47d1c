/**
 * Maps everything that can go wrong talking to an agent onto the failure taxonomy of
 * `src/shared/failure-types.ts`, as Temporal `ApplicationFailure`s that steer retries:
 * A2A errors by their `reason` (not the HTTP status, whose mapping changed between spec versions),
 * HTTP statuses our fetch classifies, policy refusals, and network faults.
 */
import { ApplicationFailure } from '@temporalio/common';
import { A2AError } from '@a2a-js/sdk/errors';
import { FailureType, type FailureTypeName } from '../shared/failure-types';
import { AgentHttpError, MalformedAnswerError, MissingCredentialError } from './agent-http-errors';
import { findCause } from './cause';
import { FetchRefusedError } from './guarded-fetch';

/** A2A error reasons that no retry can fix. */
const REFUSED_REASONS = new Set([
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'UNSUPPORTED_OPERATION',
  'VERSION_NOT_SUPPORTED',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'EXTENSION_SUPPORT_REQUIRED',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'INVALID_PARAMS',
  'INVALID_REQUEST',
  'METHOD_NOT_FOUND',
]);

/** gRPC status codes: UNAUTHENTICATED, PERMISSION_DENIED. */
const GRPC_AUTH = new Set([16, 7]);
/** INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED: no retry fixes them. */
const GRPC_REFUSED = new Set([3, 5, 6, 9, 11, 12]);
const GRPC_RESOURCE_EXHAUSTED = 8;

export function failure(
  type: FailureTypeName,
  message: string,
  details?: Record<string, unknown>,
  nextRetryDelayMs?: number,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: type !== FailureType.RETRY_LATER,
    details: details ? [details] : undefined,
    ...(nextRetryDelayMs !== undefined ? { nextRetryDelay: nextRetryDelayMs } : {}),
  });
}

/** Turn any error from a call to an agent into an `ApplicationFailure` of the taxonomy. */
export function toFailure(err: unknown, what: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;

  const refused = findCause(err, FetchRefusedError);
  if (refused) {
    const type = refused.refusal === 'size' ? FailureType.INVALID_AGENT_RESPONSE : FailureType.TRUST_REFUSED;
    return failure(type, `${what}: ${refused.message}`, { refusal: refused.refusal });
  }
  const malformed = findCause(err, MalformedAnswerError);
  if (malformed) return failure(FailureType.INVALID_AGENT_RESPONSE, `${what}: ${malformed.message}`);
  const missing = findCause(err, MissingCredentialError);
  if (missing) return failure(FailureType.CONFIG_INVALID, `${what}: ${missing.message}`);

  const http = findCause(err, AgentHttpError);
  if (http?.kind === 'auth')
    return failure(FailureType.AGENT_REFUSED, `${what}: ${http.message}`, { reason: 'AUTH_REFUSED', status: http.status });
  if (http?.kind === 'refused') return failure(FailureType.AGENT_REFUSED, `${what}: ${http.message}`, { status: http.status });
  if (http) return failure(FailureType.RETRY_LATER, `${what}: ${http.message}`, { status: http.status }, http.retryAfterMs);

  const a2a = findCause(err, A2AError);
  if (a2a) {
    const reason = a2a.reason ?? 'UNKNOWN';
    if (reason === 'INVALID_AGENT_RESPONSE') return failure(FailureType.INVALID_AGENT_RESPONSE, `${what}: ${a2a.message}`, { reason });
    if (REFUSED_REASONS.has(reason))
      return failure(FailureType.AGENT_REFUSED, `${what}: agent refused (${reason}): ${a2a.message}`, { reason });
    return failure(FailureType.RETRY_LATER, `${what}: agent error (${reason}): ${a2a.message}`, { reason });
  }

  // gRPC's own statuses (a call the server refused before A2A, or a broken channel): numeric codes.
  const grpcCode = (err as { code?: unknown; details?: unknown } | undefined)?.code;
  if (typeof grpcCode === 'number' && typeof (err as { details?: unknown }).details === 'string') {
    const message = `${what}: gRPC ${(err as Error).message.slice(0, 500)}`;
    if (GRPC_AUTH.has(grpcCode)) return failure(FailureType.AGENT_REFUSED, message, { reason: 'AUTH_REFUSED', grpcCode });
    if (grpcCode === GRPC_RESOURCE_EXHAUSTED && /larger than max/i.test(message))
      return failure(FailureType.INVALID_AGENT_RESPONSE, message, { refusal: 'size', grpcCode });
    if (GRPC_REFUSED.has(grpcCode)) return failure(FailureType.AGENT_REFUSED, message, { grpcCode });
    return failure(FailureType.RETRY_LATER, message, { grpcCode });
  }

  // Data nested without end makes the SDK's recursive decoding run out of stack: the agent's fault, not a network's.
  if (findCause(err, RangeError))
    return failure(FailureType.INVALID_AGENT_RESPONSE, `${what}: the answer could not be read (${(err as Error).message.slice(0, 200)})`);

  // The SDK reports HTTP errors without an A2A body, and what it could not read, as plain Errors.
  const message = err instanceof Error ? err.message : String(err);
  const status = /^HTTP error for \S+! Status: (\d{3})/.exec(message)?.[1];
  if (status?.startsWith('4')) return failure(FailureType.AGENT_REFUSED, `${what}: ${message.slice(0, 500)}`, { status: Number(status) });
  if (status) return failure(FailureType.RETRY_LATER, `${what}: ${message.slice(0, 500)}`, { status: Number(status) });
  if (findCause(err, SyntaxError) || /ID mismatch|missing 'result'|SSE event|missing payload/i.test(message)) {
    return failure(FailureType.INVALID_AGENT_RESPONSE, `${what}: ${message.slice(0, 500)}`);
  }
  const cause = (err as { cause?: { message?: string; code?: string } } | undefined)?.cause;
  const detail = cause?.message && cause.message !== message ? `${message} (${cause.code ?? cause.message})` : message;
  return failure(FailureType.RETRY_LATER, `${what}: ${detail}`);
}
