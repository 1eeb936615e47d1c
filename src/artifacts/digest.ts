/**
 * Turns a remote artifact into what history may hold: its digest and size always, its parts only
 * when small, and otherwise a reference into the artifact store, which holds the bytes.
 */
import { createHash } from 'node:crypto';
import type { Artifact, Part } from '../shared/a2a-types';
import type { ArtifactRecord } from '../shared/delegation-types';
import type { ArtifactStore } from './store';
import { replyBytesOf } from '../shared/inline-bytes';

/** Artifacts larger than this stay out of history (digest and store reference only). */
export const MAX_INLINE_ARTIFACT_BYTES = 64 * 1024;

/**
 * The bytes an artifact stands for, the same whether it arrived whole or in chunks: the decoded
 * bytes of `raw` parts, the text of `text` parts, or, for anything mixed, the parts as JSON.
 */
export function contentOf(parts: Part[]): Buffer {
  if (parts.length && parts.every((p) => p.raw !== undefined)) return Buffer.concat(parts.map((p) => Buffer.from(p.raw ?? '', 'base64')));
  if (parts.length && parts.every((p) => p.text !== undefined)) return Buffer.from(parts.map((p) => p.text).join(''), 'utf8');
  return Buffer.from(JSON.stringify(parts), 'utf8');
}

export interface RecordOptions {
  store?: ArtifactStore;
  inlineMaxBytes?: number;
}

export async function recordArtifact(artifact: Artifact, opts: RecordOptions = {}): Promise<ArtifactRecord> {
  const bytes = contentOf(artifact.parts);
  const mediaType = artifact.parts.find((p) => p.mediaType)?.mediaType;
  // What history would hold is the parts as they came, metadata and all: that is what must fit
  // (measured only for content that fits: a large artifact is not written out as JSON to find it does not).
  const cap = opts.inlineMaxBytes ?? MAX_INLINE_ARTIFACT_BYTES;
  const inline = bytes.length <= cap && replyBytesOf(artifact.parts) <= cap;
  const stored = !inline && opts.store ? await opts.store.put(bytes) : undefined;
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(mediaType !== undefined ? { mediaType } : {}),
    // Stored: what the store holds (a secret taken out of it changes both).
    size: stored?.size ?? bytes.length,
    sha256: stored?.sha256 ?? createHash('sha256').update(bytes).digest('hex'),
    ...(inline ? { parts: artifact.parts } : {}),
    ...(stored ? { ref: stored.ref } : {}),
    ...(stored?.redacted ? { redacted: true } : {}),
  };
}
