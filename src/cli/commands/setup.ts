/**
 * `baton setup`: makes the configured namespace ready for Baton: creates it when it is missing (and
 * the caller may), and registers the search attributes every delegation sets. Idempotent: a second
 * run finds everything there and says so.
 */
import { loadConfig } from '../../config/load';
import { connectTemporalClient } from '../../runtime/connect';
import { temporalCall } from '../../client/temporal-call';
import { ensureNamespace, registerSearchAttributes } from '../../runtime/namespace-setup';
import { ALL_SEARCH_ATTRIBUTES } from '../../shared/search-attributes';
import { printJson } from '../output';

/** Retention of closed workflows for a namespace `baton setup` creates, as the `temporal` CLI's default. */
export const DEFAULT_RETENTION_DAYS = 3;

export async function setupCommand(opts: { json?: boolean; config?: string; retentionDays?: number }): Promise<number> {
  const { config } = loadConfig(opts.config);
  const { namespace } = config.temporal;
  const retentionDays = opts.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const connection = await connectTemporalClient(config.temporal);
  try {
    const created = await temporalCall({ connection, namespace }, () => ensureNamespace(connection, namespace, retentionDays * 86_400));
    const registered = await temporalCall({ connection, namespace }, () => registerSearchAttributes(connection, namespace));
    const present = ALL_SEARCH_ATTRIBUTES.map((k) => k.name);
    if (opts.json) printJson({ namespace, created, ...(created ? { retentionDays } : {}), registered, searchAttributes: present });
    else {
      const said = [
        ...(created ? [`created it (retention ${retentionDays} days)`] : []),
        registered.length ? `registered ${registered.join(', ')}` : `Baton's ${present.length} search attributes were already registered`,
      ];
      process.stdout.write(`namespace ${namespace}: ${said.join('; ')}${created || registered.length ? '' : '; nothing to do'}\n`);
    }
    return 0;
  } finally {
    await connection.close();
  }
}
