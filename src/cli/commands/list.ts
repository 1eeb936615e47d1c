/**
 * `baton ls`: the caller's delegations, newest first, filtered through search attributes.
 */
import { connectClient } from '../context';
import { printJson } from '../output';
import { InvalidRequestError } from '../../client/errors';
import { UsageError } from '../usage-error';

export interface ListOptions {
  status?: string;
  agent?: string;
  outcome?: string;
  batonVersion?: string;
  limit: number;
  json?: boolean;
  config?: string;
}

export async function listCommand(opts: ListOptions): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  try {
    let rows;
    try {
      rows = await baton.list({
        status: opts.status,
        agent: opts.agent,
        outcome: opts.outcome,
        batonVersion: opts.batonVersion,
        limit: opts.limit,
      });
    } catch (err) {
      if (err instanceof InvalidRequestError) throw new UsageError(`filter ${err.message}`);
      throw err;
    }
    if (opts.json) printJson(rows);
    else if (!rows.length) process.stdout.write('no delegations match\n');
    else
      for (const r of rows)
        process.stdout.write(
          `${r.id.padEnd(44)} ${(r.agent ?? '').padEnd(14)} ${(r.status ?? '').padEnd(15)} ${(r.outcome ?? '').padEnd(16)} ${r.started}` +
            ` ${r.batonVersion ? `v${r.batonVersion}` : 'v<0.2'}${r.deploymentVersion ? ` ${r.deploymentVersion}` : ''}\n`,
        );
    return 0;
  } finally {
    await close();
  }
}
