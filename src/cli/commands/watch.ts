/**
 * `baton watch <id>`: follows a delegation until it settles, with a status line (see StatusLine).
 */
import { connectClient } from '../context';
import { reportSettled } from '../output';
import { followDelegation } from '../progress';

export async function watchCommand(id: string, opts: { json?: boolean; config?: string; intervalMs?: number }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  try {
    return reportSettled(await followDelegation(baton, id, opts), opts.json);
  } finally {
    await close();
  }
}
