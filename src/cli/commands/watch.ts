/**
 * `baton watch <id>`: follows a delegation until it settles, with a status line (see StatusLine).
 */
import { connectClient } from '../context';
import { exitCodeOf, formatRecord, printJson } from '../output';
import { delegationKey, delegationLine, StatusLine } from '../progress';

export async function watchCommand(id: string, opts: { json?: boolean; config?: string; intervalMs?: number }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  const status = new StatusLine(process.stderr, opts.json ? 'plain' : 'auto');
  try {
    const record = await baton.until(
      id,
      (r) => {
        status.update(delegationLine(r), delegationKey(r));
        return r.outcome !== undefined;
      },
      opts.intervalMs ?? 500,
    );
    status.done();
    if (opts.json) printJson(record);
    else process.stdout.write(`${formatRecord(record)}\n`);
    return exitCodeOf(record);
  } finally {
    status.done();
    await close();
  }
}
