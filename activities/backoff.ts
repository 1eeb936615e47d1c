/**
 * Pauses between calls inside a long activity: growing pauses that heartbeat as they wait.
 */
import { activityInfo, heartbeat, sleep } from '@temporalio/activity';

/**
 * Sleeps `ms`, heartbeating at least every half heartbeat timeout, so a long pause is never mistaken
 * for a dead worker. Rejects when the activity is cancelled.
 */
export async function pauseWithHeartbeats(ms: number, details: unknown): Promise<void> {
  const timeout = activityInfo().heartbeatTimeoutMs;
  const step = timeout ? Math.max(100, Math.floor(timeout / 2)) : ms;
  for (let left = ms; left > 0; left -= step) {
    await sleep(Math.min(step, left));
    heartbeat(details);
  }
}

/** Pauses that start at `initialMs` and grow by half each time, up to `maxMs`. */
export class Backoff {
  private next: number;

  constructor(private readonly limits: { initialMs: number; maxMs: number }) {
    this.next = limits.initialMs;
  }

  /** Waits the current pause (at least `atLeastMs`, e.g. an agent's Retry-After) with heartbeats, then grows it. */
  async pause(details: unknown, atLeastMs = 0): Promise<void> {
    await pauseWithHeartbeats(Math.max(this.next, atLeastMs), details);
    this.next = Math.min(Math.round(this.next * 1.5), this.limits.maxMs);
  }
}
