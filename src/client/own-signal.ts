/**
 * A signal of one's own for one call. Temporal's connection adds an abort listener to the signal of
 * every call it makes and never removes it, so a long-lived signal (a stream's, held while the caller
 * watches) would collect one listener, and keep one finished gRPC call alive, per long poll for as
 * long as the stream lasts.
 */

/** Runs `fn` with a signal that aborts when `signal` does, and is dropped after `fn`: `signal` keeps no listener. */
export async function withOwnSignal<T>(signal: AbortSignal, fn: (own: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const follow = (): void => own.abort(signal.reason);
  if (signal.aborted) own.abort(signal.reason);
  else signal.addEventListener('abort', follow, { once: true });
  try {
    return await fn(own.signal);
  } finally {
    signal.removeEventListener('abort', follow);
  }
}
