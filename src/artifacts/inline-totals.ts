/**
 * Totals for what history keeps inline. Each artifact has its own cap (`inlineMaxBytes`); these bound
 * the sum, per observation and per delegation, by storing the largest inline artifacts by reference
 * until the rest fits. The digest and size of each artifact stay as they were.
 */
import type { Part } from '../shared/a2a-types';
import type { ArtifactRecord } from '../shared/delegation-types';
import { inlineBytesOf } from '../shared/inline-bytes';
import { contentOf } from './digest';
import type { ArtifactStore } from './store';

/** `records` with the largest inline ones stored by reference (or, without a store, kept by digest only) until at most `cap` bytes stay inline. */
export async function withinInlineTotal(
  records: ArtifactRecord[],
  cap: number,
  store: ArtifactStore | undefined,
): Promise<ArtifactRecord[]> {
  let inline = inlineBytesOf(records);
  if (inline <= cap) return records;
  const out = [...records];
  const largestFirst = out
    .map((a, i) => ({ a, i, held: inlineBytesOf([a]) }))
    .filter(({ a }) => a.parts)
    .sort((x, y) => y.held - x.held);
  for (const { a, i, held } of largestFirst) {
    if (inline <= cap) break;
    const { parts, ...rest } = a;
    const stored = store ? await store.put(contentOf(parts as Part[])) : undefined;
    out[i] = { ...rest, ...(stored ? { ref: stored.ref } : {}) };
    inline -= held;
  }
  return out;
}
