/**
 * `baton audit <id>`: who sent what to whom in a delegation, with digests, from its history.
 */
import { connectClient } from '../context';
import { formatAudit, printJson } from '../output';

export async function auditCommand(id: string, opts: { json?: boolean; config?: string }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  try {
    const trail = await baton.audit(id);
    if (opts.json) printJson(trail);
    else process.stdout.write(`${formatAudit(trail)}\n`);
    return 0;
  } finally {
    await close();
  }
}
