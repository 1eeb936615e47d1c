/**
 * Errors from the SDK and from undici arrive wrapped (`TypeError: fetch failed`, SDK errors with a
 * `cause`): this finds the first error of a class along the `cause` chain.
 */
export function findCause<T>(err: unknown, cls: abstract new (...args: never[]) => T, maxDepth = 6): T | undefined {
  for (let e = err, depth = 0; e && depth < maxDepth; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof cls) return e;
  }
  return undefined;
}
