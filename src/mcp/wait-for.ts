/**
 * Reading something until it is done, for a bounded time: how a tool waits for a delegation or graph
 * without holding the host for longer than it allowed. Each change is reported (MCP progress).
 */
import { pause } from '../client/pause';
export interface WaitOptions<T> {
  read: () => Promise<T>;
  /** Stop once this holds. */
  done: (value: T) => boolean;
  /** What counts as a change worth reporting. */
  keyOf: (value: T) => string;
  seconds: number;
  /** Pause between reads, in ms. */
  everyMs: number;
  /** The host cancelled the request: stop at once with the last value. */
  signal?: AbortSignal;
  onChange?: (value: T, changes: number) => Promise<void>;
}

/** The last value read: done, or the one read when the time was up. */
export async function waitFor<T>(opts: WaitOptions<T>): Promise<T> {
  const until = Date.now() + opts.seconds * 1000;
  let value = await opts.read();
  let key = opts.keyOf(value);
  let changes = 0;
  while (!opts.done(value) && Date.now() < until && !opts.signal?.aborted) {
    await pause(Math.min(opts.everyMs, Math.max(0, until - Date.now())), opts.signal);
    if (opts.signal?.aborted) break;
    value = await opts.read();
    if (opts.keyOf(value) !== key) {
      key = opts.keyOf(value);
      await opts.onChange?.(value, ++changes);
    }
  }
  return value;
}
