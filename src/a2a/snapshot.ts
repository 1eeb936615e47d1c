/**
 * One observation of a remote task, in the shape history keeps: state, the agent's status text
 * (verbatim, untrusted), our own observation time, and artifact digests (large ones stored aside).
 */
import { recordArtifact, type RecordOptions } from '../artifacts/digest';
import type { Part, Task } from '../shared/a2a-types';
import type { RemoteSnapshot } from '../shared/delegation-types';

/** Status messages larger than this are not kept in history (an agent could send megabytes). */
export const MAX_STATUS_BYTES = 16 * 1024;

function boundedStatus(parts: Part[]): Part[] {
  const size = Buffer.byteLength(JSON.stringify(parts), 'utf8');
  return size <= MAX_STATUS_BYTES
    ? parts
    : [{ text: `(the agent's status message of ${size} bytes was not kept: over ${MAX_STATUS_BYTES})` }];
}

export async function snapshotOf(task: Task, opts: RecordOptions = {}): Promise<RemoteSnapshot> {
  const parts = task.status.message?.parts ? boundedStatus(task.status.message.parts) : [];
  const statusText = parts
    .map((p) => p.text)
    .filter((t): t is string => typeof t === 'string')
    .join('\n');
  return {
    taskId: task.id,
    contextId: task.contextId,
    state: task.status.state,
    ...(statusText ? { statusText } : {}),
    ...(parts.length ? { statusParts: parts } : {}),
    ...(task.status.message?.messageId ? { statusMessageId: task.status.message.messageId } : {}),
    ...(task.status.timestamp ? { remoteTimestamp: task.status.timestamp } : {}),
    observedAt: new Date().toISOString(),
    artifacts: await Promise.all((task.artifacts ?? []).map((a) => recordArtifact(a, opts))),
  };
}
