/**
 * `baton watch <id>`: follows a delegation until it settles, with a status line (see StatusLine).
 */
import { connectClient } from '../context';
import { exitCodeOf, formatRecord, printJson } from '../output';
import { followDelegation } from '../progress';

export async function watchCommand(id: string, opts: { json?: boolean; config?: string; intervalMs?: number }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  try {
    const record = await followDelegation(baton, id, opts);
    if (opts.json) printJson(record);
    else process.stdout.write(`${formatRecord(record)}\n`);
    return exitCodeOf(record);
  } finally {
    await close();
  }
}
