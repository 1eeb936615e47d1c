/**
 * One observation of a remote task, in the shape history keeps: state, the agent's status text
 * (verbatim, untrusted), our own observation time, and artifact digests.
 */
import { recordArtifact } from '../artifacts/digest';
import type { Task } from '../shared/a2a-types';
import type { RemoteSnapshot } from '../shared/delegation-types';

export function snapshotOf(task: Task): RemoteSnapshot {
  const statusText = task.status.message?.parts
    .map((p) => p.text)
    .filter((t): t is string => typeof t === 'string')
    .join('\n');
  return {
    taskId: task.id,
    contextId: task.contextId,
    state: task.status.state,
    ...(statusText ? { statusText } : {}),
    ...(task.status.message?.parts.length ? { statusParts: task.status.message.parts } : {}),
    ...(task.status.message?.messageId ? { statusMessageId: task.status.message.messageId } : {}),
    ...(task.status.timestamp ? { remoteTimestamp: task.status.timestamp } : {}),
    observedAt: new Date().toISOString(),
    artifacts: (task.artifacts ?? []).map((a) => recordArtifact(a)),
  };
}
