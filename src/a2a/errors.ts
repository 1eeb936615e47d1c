/**
 * Maps everything that can go wrong talking to an agent onto the failure taxonomy of
 * `src/shared/failure-types.ts`, as Temporal `ApplicationFailure`s that steer retries.
 */
import { ApplicationFailure } from '@temporalio/common';
import { A2AError } from '@a2a-js/sdk/errors';
import { FailureType, type FailureTypeName } from '../shared/failure-types';

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
]);

export function failure(type: FailureTypeName, message: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: type !== FailureType.RETRY_LATER,
    details: details ? [details] : undefined,
  });
}

function a2aErrorOf(err: unknown): A2AError | undefined {
  if (err instanceof A2AError) return err;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return cause instanceof A2AError ? cause : undefined;
}

/** Turn any error from a call to an agent into an `ApplicationFailure` of the taxonomy. */
export function toFailure(err: unknown, what: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const a2a = a2aErrorOf(err);
  if (a2a) {
    const reason = a2a.reason ?? 'UNKNOWN';
    if (reason === 'INVALID_AGENT_RESPONSE') return failure(FailureType.INVALID_AGENT_RESPONSE, `${what}: ${a2a.message}`, { reason });
    if (REFUSED_REASONS.has(reason)) return failure(FailureType.AGENT_REFUSED, `${what}: agent refused (${reason}): ${a2a.message}`, { reason });
    return failure(FailureType.RETRY_LATER, `${what}: agent error (${reason}): ${a2a.message}`, { reason });
  }
  const message = err instanceof Error ? err.message : String(err);
  return failure(FailureType.RETRY_LATER, `${what}: ${message}`);
}
