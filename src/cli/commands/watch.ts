/**
 * `baton watch <id>`: follows a delegation until it settles, with a status line (see StatusLine).
 */
import { rideOutOf } from '../../config/ride-out-config';
import { connectClient } from '../context';
import { reportSettled } from '../output';
import { followDelegation } from '../progress';

export async function watchCommand(id: string, opts: { json?: boolean; config?: string; intervalMs?: number }): Promise<number> {
  const { baton, loaded, close } = await connectClient(opts.config);
  try {
    return reportSettled(await followDelegation(baton, id, { ...opts, rideOut: rideOutOf(loaded.config.api) }), opts.json);
  } finally {
    await close();
  }
}
