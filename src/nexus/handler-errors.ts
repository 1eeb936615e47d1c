/**
 * Baton's errors as Nexus handler errors: one table from each error kind to the Nexus error type, so
 * the caller's SDK retries what a retry can fix (UNAVAILABLE, RESOURCE_EXHAUSTED) and fails at once
 * what it cannot (BAD_REQUEST, NOT_FOUND, CONFLICT). The message is Baton's one line.
 */
import { HandlerError, HandlerErrorType } from 'nexus-rpc';
import { asBatonError } from '../errors/as-baton-error';
import type { ErrorKind } from '../shared/baton-error';

const NEXUS_TYPE: Record<ErrorKind, { type: HandlerErrorType; retryable?: boolean }> = {
  InvalidRequest: { type: HandlerErrorType.BAD_REQUEST },
  PayloadTooLarge: { type: HandlerErrorType.BAD_REQUEST },
  Unauthorized: { type: HandlerErrorType.UNAUTHENTICATED },
  Forbidden: { type: HandlerErrorType.UNAUTHORIZED },
  // Another tenant's delegation is reported exactly like a missing one.
  NotFound: { type: HandlerErrorType.NOT_FOUND },
  // Not pending, already settled, refused by the workflow: no retry changes that.
  Refused: { type: HandlerErrorType.CONFLICT },
  RateLimited: { type: HandlerErrorType.RESOURCE_EXHAUSTED },
  // The worker's config is wrong: a retry succeeds once an operator fixes it.
  ConfigInvalid: { type: HandlerErrorType.INTERNAL, retryable: true },
  Unavailable: { type: HandlerErrorType.UNAVAILABLE },
  Interrupted: { type: HandlerErrorType.UNAVAILABLE },
  Internal: { type: HandlerErrorType.INTERNAL },
};

/** `err` as the handler error a Nexus caller gets; one already a HandlerError passes as it is. */
export function toHandlerError(err: unknown): HandlerError {
  if (err instanceof HandlerError) return err;
  const baton = asBatonError(err);
  if (!baton) return new HandlerError(HandlerErrorType.INTERNAL, 'Baton failed to handle the operation; see the worker log');
  const { type, retryable } = NEXUS_TYPE[baton.kind];
  return new HandlerError(type, baton.message, retryable === undefined ? {} : { retryableOverride: retryable });
}

/** Runs a handler step, its failure said as a Nexus handler error. */
export async function nexusCall<T>(fn: () => Promise<T>, onInternal?: (err: unknown) => void): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const mapped = toHandlerError(err);
    if (mapped.type === HandlerErrorType.INTERNAL && mapped !== err) onInternal?.(err);
    throw mapped;
  }
}
