/**
 * How an open stream (the web app's and the API's record stream, a served A2A stream, `baton watch`)
 * rides out Temporal not answering: a restarted frontend, history or matching service, a database
 * failover. Reads are tried again at a growing pause for at most `rideOutMs`; meanwhile the stream
 * says it is waiting and shows no change, and past it the stream ends with a retryable error. The
 * delegations themselves never notice: they are in Temporal. Pure.
 */

export interface RideOut {
  /** How long an outage is ridden out before the stream ends. */
  rideOutMs: number;
  /** The first pause after a failed read; each next one doubles. */
  firstPauseMs: number;
  /** The longest pause between reads. */
  maxPauseMs: number;
}

/**
 * Two minutes: longer than a service restart or a managed database's failover takes (in the cluster
 * tier one service is back within 4 s, the whole cluster within 50 s), shorter than a person's patience.
 */
export const DEFAULT_RIDE_OUT: RideOut = { rideOutMs: 120_000, firstPauseMs: 250, maxPauseMs: 5_000 };

/**
 * The pause before trying again after the `failures`-th failed read of an outage that began at
 * `since`; undefined once the outage has lasted `rideOutMs` (the stream ends).
 */
export function pauseBeforeRetry(r: RideOut, since: number, failures: number, now: number): number | undefined {
  const left = since + r.rideOutMs - now;
  if (left <= 0) return undefined;
  return Math.max(1, Math.min(left, r.maxPauseMs, r.firstPauseMs * 2 ** Math.max(0, failures - 1)));
}

/** What a stream that gave up says: what happened, that nothing was lost, and what to do. */
export function rideOutEnded(r: RideOut, what: string): string {
  return `Temporal has not answered for ${Math.round(r.rideOutMs / 1000)} s, so this stream ends; ${what} goes on in Temporal: follow it again once the server is back`;
}
