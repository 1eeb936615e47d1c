/**
 * Artifact garbage collection against a Temporal namespace: a workflow is readable while the server
 * can describe it, and the namespace's own retention is the grace for blobs no readable workflow names.
 */
import { Client, WorkflowNotFoundError, type Connection } from '@temporalio/client';
import { collectArtifacts, type GcReport } from '../artifacts/gc';
import type { CollectableStore } from '../artifacts/store';
import { temporalCall } from '../client/temporal-call';

/** The namespace's retention of closed workflows, in ms. */
export async function namespaceRetentionMs(connection: Connection, namespace: string): Promise<number> {
  const described = await temporalCall({ connection, namespace }, () => connection.workflowService.describeNamespace({ namespace }));
  const ttl = described.config?.workflowExecutionRetentionTtl;
  return Number(ttl?.seconds ?? 0) * 1000 + Math.floor((ttl?.nanos ?? 0) / 1e6);
}

export async function collectArtifactsIn(opts: {
  connection: Connection;
  namespace: string;
  store: CollectableStore;
  apply?: boolean;
  now?: Date;
}): Promise<GcReport> {
  const client = new Client({ connection: opts.connection, namespace: opts.namespace });
  const target = { connection: opts.connection, namespace: opts.namespace };
  const retentionMs = await namespaceRetentionMs(opts.connection, opts.namespace);
  return collectArtifacts({
    store: opts.store,
    retentionMs,
    apply: opts.apply,
    now: opts.now,
    // Only "not found" counts as gone: any other answer stops the collection, so nothing is removed on doubt.
    readable: (id) =>
      temporalCall(target, () =>
        client.workflow
          .getHandle(id)
          .describe()
          .then(
            () => true,
            (err: unknown) => {
              if (err instanceof WorkflowNotFoundError) return false;
              throw err;
            },
          ),
      ),
  });
}
