/**
 * How long one attempt of a sparse read lasts (decision 0041). Pure: the workflow sets the attempt's
 * timeout from it, and the activity reads how many reads it may hold from the timeout it was given.
 */

/**
 * Default span of one attempt (`sparsePoll.attemptSpan`): it reads its task for about this long
 * before it ends and Temporal starts the next. The server writes a few rows per attempt, not per read,
 * and a worker that dies mid-attempt leaves its tasks unread for at most this long (plus the margin).
 */
export const SPARSE_ATTEMPT_SPAN_MS = 5 * 60_000;

/** Room past the last held read before the server times the attempt out: reads queued behind others, a slow agent. */
export const SPARSE_ATTEMPT_MARGIN_MS = 60_000;

/** The attempt timeout of a sparse read that holds no reads: one GetTask. */
export const SPARSE_READ_TIMEOUT_MS = 30_000;

/** The most reads one attempt holds, whatever `every` is. */
export const MAX_HELD_READS = 59;

/** Reads one attempt holds after its first, in a span of `spanMs`: none when `every` is as long as the span. */
export function heldReads(everyMs: number, spanMs = SPARSE_ATTEMPT_SPAN_MS): number {
  if (!(everyMs > 0) || !(spanMs > 0)) return 0;
  return Math.max(0, Math.min(MAX_HELD_READS, Math.floor(spanMs / everyMs) - 1));
}

/** The attempt's start-to-close timeout, in ms: its held reads, the margin; a lone read's own 30 s otherwise. */
export function sparseAttemptTimeoutMs(everyMs: number, spanMs?: number): number {
  const held = heldReads(everyMs, spanMs);
  return held === 0 ? SPARSE_READ_TIMEOUT_MS : held * everyMs + SPARSE_ATTEMPT_MARGIN_MS;
}

/**
 * Reads an attempt may hold given the timeout it was scheduled with: an attempt scheduled by an
 * older workflow (30 s) holds none and reads once, as it always did.
 */
export function heldReadsWithin(everyMs: number, startToCloseMs: number, spanMs?: number): number {
  const held = heldReads(everyMs, spanMs);
  return held > 0 && startToCloseMs >= held * everyMs + SPARSE_ATTEMPT_MARGIN_MS ? held : 0;
}
