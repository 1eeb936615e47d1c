/**
 * Turns a remote artifact into what history may hold: its digest and size always, its parts only
 * when they are small enough to travel through Temporal payloads.
 */
import { createHash } from 'node:crypto';
import type { Artifact } from '../shared/a2a-types';
import type { ArtifactRecord } from '../shared/delegation-types';

/** Artifacts whose parts serialise to more than this stay out of history (only the digest goes in). */
export const MAX_INLINE_ARTIFACT_BYTES = 64 * 1024;

export function recordArtifact(artifact: Artifact, inlineCap = MAX_INLINE_ARTIFACT_BYTES): ArtifactRecord {
  const bytes = Buffer.from(JSON.stringify(artifact.parts), 'utf8');
  const mediaType = artifact.parts.find((p) => p.mediaType)?.mediaType;
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(mediaType !== undefined ? { mediaType } : {}),
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    ...(bytes.length <= inlineCap ? { parts: artifact.parts } : {}),
  };
}
