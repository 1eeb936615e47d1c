/**
 * Artifact lineage: per context and artifact name, every version a task produced, in the order the
 * nodes settled, with the newest accepted one marked. A refinement is a new task in the same context
 * whose artifact keeps the name and gets a new artifactId, so it shows up here as the next version.
 */
import type { GraphNodeRecord, LineageEntry } from './graph-types';

export function lineageOf(settledInOrder: GraphNodeRecord[]): LineageEntry[] {
  const entries = new Map<string, LineageEntry>();
  for (const node of settledInOrder) {
    const { contextId, taskId } = node.remote;
    if (!contextId || !taskId) continue;
    for (const artifact of node.artifacts) {
      const name = artifact.name ?? artifact.artifactId;
      const key = JSON.stringify([contextId, name]);
      const entry = entries.get(key) ?? { contextId, name, versions: [] };
      entries.set(key, entry);
      const accepted = node.outcome === 'ACCEPTED';
      entry.versions.push({
        artifactId: artifact.artifactId,
        taskId,
        nodeId: node.id,
        accepted,
        sha256: artifact.sha256,
        size: artifact.size,
        ...(artifact.mediaType ? { mediaType: artifact.mediaType } : {}),
      });
      if (accepted) entry.latestAccepted = artifact.artifactId;
    }
  }
  return [...entries.values()];
}
