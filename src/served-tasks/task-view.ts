/**
 * What an A2A caller sees of a served task: a delegation's record as an A2A 1.0 Task (wire JSON).
 * Pure: the request handler reads the record and the artifacts' bytes, this module only maps them.
 *
 * A remote COMPLETED is only a candidate: the caller's task is COMPLETED, with artifacts, only when
 * the delegation's outcome is ACCEPTED; every other outcome keeps its own state and says why.
 */
import type { Part, TaskState } from '../shared/a2a-types';
import type { DelegationRecord, DelegationStatus, OutcomeKind, PendingRequest, Turn } from '../shared/delegation-types';
import type { GraphOutcomeKind, GraphRecord } from '../shared/graph-types';

/** The caller's view while the delegation runs. A review is Baton's own step: the caller sees work going on. */
const STATE_OF_STATUS: Record<DelegationStatus, TaskState> = {
  STARTING: 'TASK_STATE_SUBMITTED',
  REMOTE_ACTIVE: 'TASK_STATE_WORKING',
  WAITING_INPUT: 'TASK_STATE_INPUT_REQUIRED',
  WAITING_AUTH: 'TASK_STATE_AUTH_REQUIRED',
  WAITING_REVIEW: 'TASK_STATE_WORKING',
  CANCELLING: 'TASK_STATE_WORKING',
  SETTLED: 'TASK_STATE_WORKING',
};

/** The caller's view of a settled delegation: only ACCEPTED completes it. */
const STATE_OF_OUTCOME: Record<OutcomeKind, TaskState> = {
  ACCEPTED: 'TASK_STATE_COMPLETED',
  REJECTED: 'TASK_STATE_FAILED',
  REMOTE_FAILED: 'TASK_STATE_FAILED',
  REMOTE_REJECTED: 'TASK_STATE_REJECTED',
  CANCELED: 'TASK_STATE_CANCELED',
  TIMED_OUT: 'TASK_STATE_FAILED',
  ERROR: 'TASK_STATE_FAILED',
};

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

export function taskStateOf(record: Pick<DelegationRecord, 'status' | 'outcome'>): TaskState {
  return record.status === 'SETTLED' && record.outcome ? STATE_OF_OUTCOME[record.outcome.kind] : STATE_OF_STATUS[record.status];
}

/** Which delegations a ListTasks `status` names, as a visibility clause (BatonStatus / BatonOutcome). */
export function visibilityClauseFor(state: TaskState): string {
  const statuses = (Object.keys(STATE_OF_STATUS) as DelegationStatus[]).filter((s) => s !== 'SETTLED' && STATE_OF_STATUS[s] === state);
  const outcomes = (Object.keys(STATE_OF_OUTCOME) as OutcomeKind[]).filter((o) => STATE_OF_OUTCOME[o] === state);
  const clauses = [
    ...(statuses.length ? [`BatonStatus IN (${statuses.map((s) => `'${s}'`).join(', ')})`] : []),
    ...(outcomes.length ? [`(BatonStatus = 'SETTLED' AND BatonOutcome IN (${outcomes.map((o) => `'${o}'`).join(', ')}))`] : []),
  ];
  // A settled delegation whose outcome is not written yet shows as working, like its record.
  if (state === 'TASK_STATE_WORKING') clauses.push(`(BatonStatus = 'SETTLED' AND BatonOutcome IS NULL)`);
  return `(${clauses.join(' OR ')})`;
}

/**
 * A served task's state, from whatever runs it (one delegation, or a graph of them): what the view
 * needs, and where a caller's next message goes.
 */
export interface ServedStatus {
  state: TaskState;
  /** While INPUT_REQUIRED or AUTH_REQUIRED: the delegation that asks, and its request. */
  pending?: { delegationId: string } & Pick<PendingRequest, 'kind' | 'requestId' | 'prompt' | 'credentials' | 'observedAt'>;
  /** Once ended: the local outcome and why. */
  outcome?: { kind: string; reasons: string[] };
  /** The latest time a change was observed (absent: the task's start). */
  changedAt?: string;
  /** Baton's own status, for the caller's metadata. */
  status: string;
}

/** The state of a task that is one delegation. */
export function delegationStatus(record: DelegationRecord): ServedStatus {
  const state = taskStateOf(record);
  const p = record.pending;
  const times = [...record.remote.history.map((h) => h.observedAt), p?.observedAt ?? ''].filter(Boolean);
  return {
    state,
    status: record.status,
    ...(p && INTERRUPTED_STATES.has(state) && p.kind !== 'review'
      ? {
          pending: {
            delegationId: record.id,
            kind: p.kind,
            requestId: p.requestId,
            prompt: p.prompt,
            observedAt: p.observedAt,
            ...(p.credentials ? { credentials: p.credentials } : {}),
          },
        }
      : {}),
    ...(record.outcome ? { outcome: record.outcome } : {}),
    ...(times.length ? { changedAt: times.reduce((a, b) => (b > a ? b : a)) } : {}),
  };
}

const STATE_OF_GRAPH_OUTCOME: Record<GraphOutcomeKind, TaskState> = {
  ACCEPTED: 'TASK_STATE_COMPLETED',
  FAILED: 'TASK_STATE_FAILED',
  CANCELED: 'TASK_STATE_CANCELED',
};

/**
 * The state of a task that is a graph: its outcome once settled; while it runs, the question of a
 * node that waits (`waiting`, that node's delegation, read by the caller of this function), else working.
 */
export function graphStatus(graph: GraphRecord, waiting?: DelegationRecord): ServedStatus {
  if (graph.status === 'SETTLED' && graph.outcome)
    return { state: STATE_OF_GRAPH_OUTCOME[graph.outcome.kind], status: graph.status, outcome: graph.outcome };
  const asked = waiting ? delegationStatus(waiting) : undefined;
  if (asked?.pending) return { ...asked, status: graph.status };
  return { state: 'TASK_STATE_WORKING', status: graph.status };
}

/** Nodes of a graph whose results are the graph's: those no other node depends on. */
export function endNodes(graph: Pick<GraphRecord, 'nodes'>): string[] {
  const depended = new Set(graph.nodes.flatMap((n) => n.dependsOn));
  return graph.nodes.filter((n) => !depended.has(n.id)).map((n) => n.delegationId);
}

/** What the request handler knows of a served task besides its state. */
export interface ServedTaskFacts {
  /** The task id the caller uses (the workflow id). */
  id: string;
  /** The caller's contextId. */
  contextId: string;
  /** When the task was started: its timestamp until a later change. */
  startedAt: string;
  /** The accepted artifacts with their parts (read from the store when a record keeps only a digest). */
  artifacts?: { artifactId: string; name?: string; parts: Part[] }[];
  /** The turns of the delegation that is the task, for its history (a graph's task has none). */
  turns?: Turn[];
}

export interface WireMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: 'ROLE_AGENT' | 'ROLE_USER';
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface WireTaskStatus {
  state: TaskState;
  timestamp: string;
  message?: WireMessage;
}

export interface WireArtifact {
  artifactId: string;
  name?: string;
  parts: Part[];
}

export interface WireTask {
  id: string;
  contextId: string;
  status: WireTaskStatus;
  artifacts: WireArtifact[];
  history: WireMessage[];
  metadata: Record<string, unknown>;
}

/** The status message: the agent's question while it waits, the reasons once it ends without acceptance. */
function statusMessage(s: ServedStatus, facts: ServedTaskFacts): WireMessage | undefined {
  const base = { contextId: facts.contextId, taskId: facts.id, role: 'ROLE_AGENT' as const };
  if (INTERRUPTED_STATES.has(s.state) && s.pending) {
    const p = s.pending;
    return {
      ...base,
      messageId: p.requestId,
      // The remote agent's own question, passed on as data: the caller decides what to make of it.
      parts: p.prompt.length ? p.prompt : [{ text: p.kind === 'auth' ? 'authentication required' : 'input required' }],
      metadata: {
        batonRequestId: p.requestId,
        ...(p.kind === 'auth' ? { answerWith: 'a data part {"credential": "<name>"}', credentials: p.credentials ?? [] } : {}),
      },
    };
  }
  if (TERMINAL_STATES.has(s.state) && s.state !== 'TASK_STATE_COMPLETED' && s.outcome) {
    const reasons = s.outcome.reasons.length ? s.outcome.reasons.join('; ') : s.outcome.kind;
    return { ...base, messageId: `${facts.id}/outcome`, parts: [{ text: `${s.outcome.kind}: ${reasons}` }] };
  }
  return undefined;
}

/** The served task as A2A wire JSON. Artifacts only when COMPLETED, and only those `facts` carries. */
export function wireTaskOf(s: ServedStatus, facts: ServedTaskFacts): WireTask {
  const message = statusMessage(s, facts);
  const timestamp = s.changedAt && s.changedAt > facts.startedAt ? s.changedAt : facts.startedAt;
  return {
    id: facts.id,
    contextId: facts.contextId,
    status: { state: s.state, timestamp, ...(message ? { message } : {}) },
    artifacts:
      s.state === 'TASK_STATE_COMPLETED'
        ? (facts.artifacts ?? []).map((a) => ({ artifactId: a.artifactId, ...(a.name ? { name: a.name } : {}), parts: a.parts }))
        : [],
    history: historyOf(facts),
    metadata: { batonStatus: s.status, ...(s.outcome ? { batonOutcome: s.outcome.kind } : {}) },
  };
}

/**
 * The task's history, oldest first: each turn Baton sent (the caller's request, then each answer), the
 * agent's question before the answer to it. The messageIds are those Baton sent the agent (a turn's
 * `<delegation id>/turn-<n>`); the question now open is the status message, not yet history.
 */
function historyOf(facts: ServedTaskFacts): WireMessage[] {
  const base = { contextId: facts.contextId, taskId: facts.id };
  return (facts.turns ?? []).flatMap((t) => [
    ...(t.question ? [{ ...base, messageId: `${t.messageId}/question`, role: 'ROLE_AGENT' as const, parts: t.question }] : []),
    ...(t.parts ? [{ ...base, messageId: t.messageId, role: 'ROLE_USER' as const, parts: t.parts }] : []),
  ]);
}

/** A task with at most its `historyLength` latest messages (A2A: unset is no limit, 0 none). */
export function withHistoryLength(task: WireTask, historyLength: number | undefined): WireTask {
  if (historyLength === undefined || historyLength >= task.history.length) return task;
  return { ...task, history: historyLength <= 0 ? [] : task.history.slice(-historyLength) };
}

/**
 * What changed between two views of a task, as stream events: the new artifacts first (so a
 * COMPLETED status arrives after its artifacts), then the status if its state or question changed.
 */
export function changesBetween(
  before: WireTask | undefined,
  after: WireTask,
): (
  | { artifactUpdate: { taskId: string; contextId: string; artifact: WireArtifact; append: false; lastChunk: true } }
  | { statusUpdate: { taskId: string; contextId: string; status: WireTaskStatus } }
)[] {
  const events: ReturnType<typeof changesBetween> = [];
  const seen = new Set((before?.artifacts ?? []).map((a) => a.artifactId));
  for (const artifact of after.artifacts) {
    if (!seen.has(artifact.artifactId))
      events.push({ artifactUpdate: { taskId: after.id, contextId: after.contextId, artifact, append: false, lastChunk: true } });
  }
  const changed =
    !before || before.status.state !== after.status.state || before.status.message?.messageId !== after.status.message?.messageId;
  if (changed) events.push({ statusUpdate: { taskId: after.id, contextId: after.contextId, status: after.status } });
  return events;
}

/** What a caller sees of a task, in one word: its state and the question it asks (a change of either is news). */
export function fingerprintOf(task: Pick<WireTask, 'status'>): string {
  return `${task.status.state}|${task.status.message?.messageId ?? ''}`;
}
