/**
 * Reads that ride out Temporal not answering (src/shared/ride-out.ts): what every open stream of
 * Baton's uses, so a caller sees the same thing during an outage whichever way it follows a task.
 */
import { asBatonError } from '../errors/as-baton-error';
import { TemporalUnavailableError } from '../errors/temporal-errors';
import { DEFAULT_RIDE_OUT, pauseBeforeRetry, rideOutEnded, type RideOut } from '../shared/ride-out';

/** The outage lasted longer than the stream rides out: retryable, nothing was lost. */
export class RideOutEndedError extends TemporalUnavailableError {
  readonly retryable = true;
}

export interface ReadThroughOutageOptions {
  /** Default DEFAULT_RIDE_OUT (two minutes). */
  rideOut?: RideOut;
  /** What goes on while the stream waits, for the message when it gives up. Default "the task". */
  what?: string;
  /** Called once when reads begin to fail, with the failure. */
  onOutage?: (err: Error) => void;
  /** Called once when a read succeeds again after failing. */
  onBack?: () => void;
  /** Whether whoever reads has gone away: then the wait ends early (and `read`'s last error is thrown). */
  stopped?: () => boolean;
}

/**
 * `read()`, tried again while Temporal is unavailable, for at most the ride-out; any other failure
 * is thrown at once. Past the ride-out, RideOutEndedError.
 */
export async function readThroughOutage<T>(read: () => Promise<T>, opts: ReadThroughOutageOptions = {}): Promise<T> {
  const rideOut = opts.rideOut ?? DEFAULT_RIDE_OUT;
  let since: number | undefined;
  for (let failures = 1; ; failures++) {
    // An outage is counted from when the first read that failed began: the client's own retries
    // (about 20 s of them, Temporal's default) are part of it.
    const began = Date.now();
    try {
      const value = await read();
      if (since !== undefined) opts.onBack?.();
      return value;
    } catch (err) {
      const known = asBatonError(err);
      if (known?.kind !== 'Unavailable') throw err;
      if (since === undefined) {
        since = began;
        opts.onOutage?.(known);
      }
      const pause = pauseBeforeRetry(rideOut, since, failures, Date.now());
      if (pause === undefined) throw new RideOutEndedError(rideOutEnded(rideOut, opts.what ?? 'the task'), { cause: err });
      await new Promise((r) => setTimeout(r, pause));
      if (opts.stopped?.()) throw known;
    }
  }
}
