/**
 * What a Temporal namespace needs before Baton runs on it: Baton's search attributes, which every
 * delegation sets. `baton setup` registers them; workers and clients check for them.
 */
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { grpcCodeOf, isUnavailable } from '../errors/as-baton-error';
import { NamespaceCreateRefusedError, NamespaceMissingError, SearchAttributesMissingError } from '../errors/temporal-errors';
import { ALL_SEARCH_ATTRIBUTES } from '../shared/search-attributes';

/** gRPC NOT_FOUND: the namespace does not exist. */
const GRPC_NOT_FOUND = 5;

/** Either connection (client or worker): both carry the operator service. */
export interface OperatorConnection {
  operatorService: {
    listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, unknown> | null }>;
    addSearchAttributes(request: { namespace: string; searchAttributes: Record<string, number> }): Promise<unknown>;
  };
}

/** gRPC PERMISSION_DENIED: the caller may not create namespaces. */
const GRPC_PERMISSION_DENIED = 7;

/**
 * Creates `namespace` when it does not exist (with `retentionSeconds` of retention for closed
 * workflows) and waits until the server serves it; returns whether it was created.
 */
export async function ensureNamespace(connection: Connection, namespace: string, retentionSeconds: number): Promise<boolean> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return false;
  } catch (err) {
    if (grpcCodeOf(err) !== GRPC_NOT_FOUND) throw err;
  }
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(retentionSeconds * 1000) });
  } catch (err) {
    if (grpcCodeOf(err) === GRPC_PERMISSION_DENIED) throw new NamespaceCreateRefusedError(namespace, (err as Error).message);
    throw err;
  }
  // A new namespace reaches every frontend's cache within seconds; until then its search attributes
  // cannot be added: NOT_FOUND, or UNAVAILABLE ("Unable to get namespace … info") when the cache's read
  // times out on a busy database.
  for (const started = Date.now(); ;) {
    try {
      await connection.operatorService.listSearchAttributes({ namespace });
      return true;
    } catch (err) {
      const notServedYet = grpcCodeOf(err) === GRPC_NOT_FOUND || isUnavailable(err);
      if (!notServedYet || Date.now() - started > 60_000) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The names of Baton's search attributes that `namespace` lacks. */
export async function missingSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace }).catch((err: unknown) => {
    throw grpcCodeOf(err) === GRPC_NOT_FOUND ? new NamespaceMissingError(namespace) : err;
  });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  return ALL_SEARCH_ATTRIBUTES.map((k) => k.name).filter((name) => !known.has(name));
}

/** Throws SearchAttributesMissingError (which names `baton setup`) when `namespace` lacks any of Baton's search attributes. */
export async function requireSearchAttributes(connection: OperatorConnection, namespace: string): Promise<void> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length) throw new SearchAttributesMissingError(namespace, missing);
}

/**
 * Adds whichever of Baton's search attributes the namespace lacks, over a connection the caller
 * owns (TLS, API keys and all); returns the names it added (none when all were there).
 */
export async function registerSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (!missing.length) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    // 👉 Enum value 2 is INDEXED_VALUE_TYPE_KEYWORD; every Baton attribute is a keyword.
    searchAttributes: Object.fromEntries(missing.map((name) => [name, 2])),
  });
  return missing;
}
