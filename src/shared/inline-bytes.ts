/**
 * How many bytes of agents' content a delegation's history holds inline: the workflow counts them, the
 * activities keep each observation within what is left (`artifacts.delegationInlineMaxBytes`).
 */
import type { Part } from './a2a-types';
import type { ArtifactRecord } from './delegation-types';

/**
 * Bytes the inline artifacts hold in history: their parts as JSON, metadata, file names and media
 * types included (stored ones hold none: only their digest is in history).
 */
export function inlineBytesOf(records: ArtifactRecord[]): number {
  return records.reduce((n, a) => n + (a.parts ? replyBytesOf(a.parts) : 0), 0);
}

/** Bytes a direct reply's parts hold, as JSON (what history keeps of them). */
export function replyBytesOf(parts: Part[]): number {
  let n = 0;
  for (const ch of JSON.stringify(parts)) n += ch.charCodeAt(0) < 0x80 ? 1 : ch.charCodeAt(0) < 0x800 ? 2 : 3;
  return n;
}
