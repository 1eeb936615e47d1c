/**
 * Runs a client's call to Temporal and says what went wrong in Baton's terms: a namespace without
 * Baton's search attributes, a missing namespace, a server that stopped answering.
 */
import type { ConnectionLike } from '@temporalio/client';
import { asBatonError, grpcCodeOf } from '../errors/as-baton-error';
import { SearchAttributesMissingError } from '../errors/temporal-errors';
import { missingSearchAttributes } from './namespace-setup';
import { BatonError } from '../shared/baton-error';

/** gRPC INVALID_ARGUMENT: how the server refuses a start or a query that names an unknown search attribute. */
const GRPC_INVALID_ARGUMENT = 3;

/** Why `err` happened, as a BatonError where that can be said; anything else is returned as it is. */
async function explained(err: unknown, target: { connection: ConnectionLike; namespace: string }): Promise<unknown> {
  if (err instanceof BatonError) return err;
  if (grpcCodeOf(err) === GRPC_INVALID_ARGUMENT) {
    // 👉 The server says so only in free text; asking which attributes exist is the typed answer.
    const missing = await missingSearchAttributes(target.connection, target.namespace).catch(() => []);
    if (missing.length) return new SearchAttributesMissingError(target.namespace, missing);
  }
  return asBatonError(err) ?? err;
}

/** Runs `call`; a failure is thrown as the BatonError that explains it, when one does. */
export async function temporalCall<T>(target: { connection: ConnectionLike; namespace: string }, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw await explained(err, target);
  }
}
