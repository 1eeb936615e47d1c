/**
 * `baton watch <id>`: follows a delegation until it settles. In a terminal, one status line redrawn
 * with the elapsed time; otherwise a plain line at each change.
 */
import type { DelegationRecord } from '../../shared/delegation-types';
import { connectClient } from '../context';
import { exitCodeOf, formatRecord, printJson } from '../output';

function line(r: DelegationRecord, elapsedMs: number): string {
  const remote = r.remote.state ? r.remote.state.replace('TASK_STATE_', '') : '-';
  const pending = r.pending ? `  waiting for ${r.pending.kind} (${r.pending.requestId})` : '';
  return `${r.id}  ${r.status}  remote ${remote}  ${(elapsedMs / 1000).toFixed(0)}s${pending}`;
}

export async function watchCommand(id: string, opts: { json?: boolean; config?: string; intervalMs?: number }): Promise<number> {
  const { baton, close } = await connectClient(opts.config);
  const started = Date.now();
  const tty = process.stderr.isTTY && !opts.json;
  let last = '';
  try {
    const record = await baton.until(
      id,
      (r) => {
        const now = line(r, Date.now() - started);
        const key = `${r.status}|${r.remote.state}|${r.pending?.requestId}`;
        if (tty) process.stderr.write(`\r\x1b[2K${now}`);
        else if (key !== last) process.stderr.write(`${now}\n`);
        last = key;
        return r.outcome !== undefined;
      },
      opts.intervalMs ?? 500,
    );
    if (tty) process.stderr.write('\n');
    if (opts.json) printJson(record);
    else process.stdout.write(`${formatRecord(record)}\n`);
    return exitCodeOf(record);
  } finally {
    await close();
  }
}
