/**
 * `baton setup`: makes the configured namespace ready for Baton by registering the search attributes
 * every delegation sets. Idempotent: a second run finds them and says so.
 */
import { loadConfig } from '../../config/load';
import { connectTemporalClient } from '../../runtime/connect';
import { registerSearchAttributes } from '../../runtime/namespace-setup';
import { ALL_SEARCH_ATTRIBUTES } from '../../shared/search-attributes';
import { printJson } from '../output';

export async function setupCommand(opts: { json?: boolean; config?: string }): Promise<number> {
  const { config } = loadConfig(opts.config);
  const { namespace } = config.temporal;
  const connection = await connectTemporalClient(config.temporal.address);
  try {
    const registered = await registerSearchAttributes(connection, namespace);
    const present = ALL_SEARCH_ATTRIBUTES.map((k) => k.name);
    if (opts.json) printJson({ namespace, registered, searchAttributes: present });
    else if (registered.length) process.stdout.write(`namespace ${namespace}: registered ${registered.join(', ')}\n`);
    else
      process.stdout.write(`namespace ${namespace}: Baton's ${present.length} search attributes were already registered; nothing to do\n`);
    return 0;
  } finally {
    await connection.close();
  }
}
