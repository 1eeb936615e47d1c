/**
 * The typed result an embedding workflow awaits: the outcome first, the full record behind it.
 * Workflow-safe.
 */
import type { ArtifactRecord, DelegationRecord, OutcomeKind } from './delegation-types';
import type { Part, TaskState } from './a2a-types';

export interface DelegationResult {
  /** The delegation's workflow id. */
  id: string;
  outcome: OutcomeKind;
  /** True only for ACCEPTED: a remote COMPLETED that the acceptance policy (and reviewer) took. */
  accepted: boolean;
  reasons: string[];
  remote: { taskId?: string; contextId?: string; state?: TaskState };
  artifacts: ArtifactRecord[];
  /** The agent's direct Message, when it answered without a task. */
  reply?: { messageId: string; parts: Part[] };
  /** The whole record, as `baton show --json` prints it; absent when the delegation workflow itself died. */
  record?: DelegationRecord;
}

export function resultOf(record: DelegationRecord): DelegationResult {
  const outcome = record.outcome ?? { kind: 'ERROR' as const, reasons: ['the delegation ended without an outcome'] };
  return {
    id: record.id,
    outcome: outcome.kind,
    accepted: outcome.kind === 'ACCEPTED',
    reasons: outcome.reasons,
    remote: { taskId: record.remote.taskId, contextId: record.remote.contextId, state: record.remote.state },
    artifacts: record.artifacts,
    ...(record.reply ? { reply: record.reply } : {}),
    record,
  };
}

/**
 * What a delegation tells the graph that started it when it ends (`batonSettled`): its result without
 * the record, artifacts by reference. A graph keeps what its later nodes are sent, never the content.
 */
export function settledNotice(result: DelegationResult): DelegationResult {
  const artifacts = result.artifacts.map(({ artifactId, name, mediaType, size, sha256 }) => ({
    artifactId,
    ...(name !== undefined ? { name } : {}),
    ...(mediaType !== undefined ? { mediaType } : {}),
    size,
    sha256,
  }));
  return { id: result.id, outcome: result.outcome, accepted: result.accepted, reasons: result.reasons, remote: result.remote, artifacts };
}

/**
 * The result for a delegation workflow that failed, was terminated or was cancelled instead of
 * returning a record: ERROR unless it was a cancel.
 */
export function brokenResult(id: string, why: string, outcome: 'ERROR' | 'CANCELED' = 'ERROR'): DelegationResult {
  return { id, outcome, accepted: false, reasons: [why], remote: {}, artifacts: [] };
}

/**
 * What a person watching a delegation counts as a change: status, remote state, pending request,
 * outcome. Progress lines and the HTTP API's status stream both report it.
 */
export function changeKeyOf(r: DelegationRecord): string {
  return `${r.status}|${r.remote.state ?? ''}|${r.pending?.requestId ?? ''}|${r.outcome?.kind ?? ''}`;
}

/** What a watcher of the whole record counts as a change: `changeKeyOf`, and a new artifact too (status streams, MCP subscriptions). */
export function recordChangeKeyOf(r: DelegationRecord): string {
  return `${changeKeyOf(r)}|${r.artifacts.length}`;
}
