/**
 * Progress on long waits: in a terminal, one status line redrawn in place (with the elapsed time);
 * otherwise (a pipe, a log file, CI) a plain line each time what it says changes. On stderr, so
 * stdout keeps only the result.
 */
import type { BatonClient } from '../client/baton-client';
import { readThroughOutage } from '../client/read-through-outage';
import { ChangeWaiter } from '../client/history-follower';
import type { RideOut } from '../shared/ride-out';
import { changeKeyOf } from '../shared/delegation-result';
import type { DelegationRecord } from '../shared/delegation-types';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

export class StatusLine {
  private last: string | undefined;
  private drawn = false;
  private readonly started = Date.now();

  constructor(
    private readonly out: ProgressStream = process.stderr,
    /**
     * `auto`: redrawn in a terminal, plain lines otherwise; `plain`: plain lines even in a terminal
     * (with --json, whose readers may tee stderr); `off`: nothing. Default auto.
     */
    private readonly mode: 'auto' | 'plain' | 'off' = 'auto',
  ) {}

  private get redraw(): boolean {
    return this.mode === 'auto' && this.out.isTTY === true;
  }

  /** Seconds since the wait began, as shown on the line. */
  elapsed(now = Date.now()): string {
    const s = Math.floor((now - this.started) / 1000);
    return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  }

  /**
   * Shows `text` (which should not carry the elapsed time: it is appended in a terminal only). `key`
   * says what counts as a change for plain output; by default the text itself.
   */
  update(text: string, key = text): void {
    if (this.mode === 'off') return;
    if (this.redraw) {
      const line = `${text}  ${this.elapsed()}`;
      const width = this.out.columns ?? 120;
      this.out.write(`\r\x1b[2K${line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line}`);
      this.drawn = true;
    } else if (key !== this.last) {
      this.out.write(`${text}  (${this.elapsed()})\n`);
    }
    this.last = key;
  }

  /** Ends the redrawn line so what follows starts on a line of its own. */
  done(): void {
    if (this.redraw && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}

/** A delegation in one line: status, remote state, and what it waits for. */
export function delegationLine(r: DelegationRecord): string {
  const remote = r.remote.state ? r.remote.state.replace('TASK_STATE_', '') : '-';
  const pending = r.pending ? `  waiting for ${r.pending.kind} (${r.pending.requestId})` : '';
  const outcome = r.outcome ? `  ${r.outcome.kind}` : '';
  return `${r.id}  ${r.status}  remote ${remote}${pending}${outcome}`;
}

/**
 * Reads the delegation until it settles, showing each change on a status line (plain lines with
 * --json), and returns the settled record.
 */
export async function followDelegation(
  baton: BatonClient,
  id: string,
  opts: { json?: boolean; intervalMs?: number; rideOut?: RideOut } = {},
): Promise<DelegationRecord> {
  const status = new StatusLine(process.stderr, opts.json ? 'plain' : 'auto');
  // Read again whenever the delegation's history says it may show something new (decision 0039);
  // followed from before the first read, so no change after it is missed.
  const changes = new ChangeWaiter(baton.client, id);
  await changes.prime();
  try {
    for (;;) {
      // Temporal away for a while (a restart, a failover) is waited out on the status line.
      const record = await readThroughOutage(() => baton.show(id), {
        ...(opts.rideOut ? { rideOut: opts.rideOut } : {}),
        what: `delegation ${id}`,
        onOutage: () => status.update(`${id}  Temporal is not answering; still watching`),
      });
      status.update(delegationLine(record), changeKeyOf(record));
      if (record.outcome !== undefined) return record;
      // Read again after 5 s without a change anyway: only a read says Temporal is not answering.
      await changes.changed({ maxWaitMs: 5_000, failPauseMs: opts.intervalMs ?? 500 });
    }
  } finally {
    status.done();
  }
}
