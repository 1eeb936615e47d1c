/**
 * `baton setup`: makes the configured namespace ready for Baton: creates it when it is missing (and
 * the caller may), and registers the search attributes every delegation sets; with the S3 artifact
 * store, creates its bucket when missing; with `--nexus`, the Nexus endpoint callers in other namespaces
 * reach Baton through. Idempotent: a second run finds everything there and says so.
 */
import { configuredStore } from '../../artifacts/configured-store';
import { S3ArtifactStore } from '../../artifacts/s3-store';
import { loadConfig } from '../../config/load';
import { connectTemporalClient } from '../../runtime/connect';
import { temporalCall } from '../../client/temporal-call';
import { ensureNamespace, registerSearchAttributes } from '../../client/namespace-setup';
import { ALL_SEARCH_ATTRIBUTES } from '../../shared/search-attributes';
import { printJson } from '../output';
import { UsageError } from '../usage-error';
import { ensureNexusEndpoint } from '../../nexus/endpoint-setup';
import type { NexusConfig } from '../../config/schema';

/** Retention of closed workflows for a namespace `baton setup` creates, as the `temporal` CLI's default. */
export const DEFAULT_RETENTION_DAYS = 3;

export async function setupCommand(opts: { json?: boolean; config?: string; retentionDays?: number; nexus?: boolean }): Promise<number> {
  const { config } = loadConfig(opts.config);
  const { namespace, taskQueue } = config.temporal;
  if (opts.nexus && !config.nexus)
    throw new UsageError(
      '--nexus: the config has no nexus section to set up; add one (nexus: { endpoint: baton, callers: [{ namespace: …, tenant: … }] }, docs/nexus.md)',
    );
  const retentionDays = opts.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const connection = await connectTemporalClient(config.temporal);
  try {
    const created = await temporalCall({ connection, namespace }, () => ensureNamespace(connection, namespace, retentionDays * 86_400));
    const registered = await temporalCall({ connection, namespace }, () => registerSearchAttributes(connection, namespace));
    const present = ALL_SEARCH_ATTRIBUTES.map((k) => k.name);
    const store = configuredStore(config);
    const bucket = store instanceof S3ArtifactStore ? { where: store.where, created: await store.ensureBucket() } : undefined;
    const nexus =
      opts.nexus && config.nexus
        ? await temporalCall({ connection, namespace }, () =>
            ensureNexusEndpoint(connection, (config.nexus as NexusConfig).endpoint, { namespace, taskQueue }),
          )
        : undefined;
    if (opts.json)
      printJson({
        namespace,
        created,
        ...(created ? { retentionDays } : {}),
        registered,
        searchAttributes: present,
        ...(bucket ? { artifactStore: bucket } : {}),
        ...(nexus ? { nexusEndpoint: nexus } : {}),
      });
    else {
      const said = [
        ...(created ? [`created it (retention ${retentionDays} days)`] : []),
        registered.length ? `registered ${registered.join(', ')}` : `Baton's ${present.length} search attributes were already registered`,
      ];
      process.stdout.write(`namespace ${namespace}: ${said.join('; ')}${created || registered.length ? '' : '; nothing to do'}\n`);
      if (bucket)
        process.stdout.write(`artifact store ${bucket.where}: ${bucket.created ? 'created the bucket' : 'the bucket is there'}\n`);
      if (nexus)
        process.stdout.write(
          `nexus endpoint ${nexus.endpoint}: ${nexus.created ? 'created' : 'there'}, targeting namespace ${namespace}, task queue ${taskQueue}\n`,
        );
    }
    return 0;
  } finally {
    await connection.close();
  }
}
