/**
 * Pure decisions about remote task states. A remote state is *active* (the agent works on it),
 * *interrupted* (the agent waits for us: input or authentication) or *terminal*. Observation runs
 * while a task is active. COMPLETED is only a candidate: local acceptance decides.
 */
import type { TaskState } from './a2a-types';
import type { Outcome, RemoteSnapshot } from './delegation-types';

export type StateClass = 'active' | 'interrupted' | 'terminal';

const CLASS: Record<TaskState, StateClass> = {
  TASK_STATE_SUBMITTED: 'active',
  TASK_STATE_WORKING: 'active',
  TASK_STATE_INPUT_REQUIRED: 'interrupted',
  TASK_STATE_AUTH_REQUIRED: 'interrupted',
  TASK_STATE_COMPLETED: 'terminal',
  TASK_STATE_FAILED: 'terminal',
  TASK_STATE_CANCELED: 'terminal',
  TASK_STATE_REJECTED: 'terminal',
};

export function classifyState(state: TaskState): StateClass {
  return CLASS[state];
}

/** The agent is working on it: observation goes on. Interrupted and terminal states need a local step. */
export function isActive(state: TaskState): boolean {
  return CLASS[state] === 'active';
}

/** The agent waits for us: an answer (INPUT_REQUIRED) or authentication (AUTH_REQUIRED). */
export function isInterrupted(state: TaskState): boolean {
  return CLASS[state] === 'interrupted';
}

/** The remote task has ended (COMPLETED, FAILED, CANCELED or REJECTED): nothing can change it any more. */
export function isTerminal(state: TaskState): boolean {
  return CLASS[state] === 'terminal';
}

/**
 * The outcome of a remote terminal state other than COMPLETED, with the agent's text kept verbatim.
 * Returns undefined for COMPLETED (acceptance decides) and for non-terminal states.
 */
export function outcomeOfRemoteEnd(state: TaskState, statusText?: string): Outcome | undefined {
  const said = statusText ? [`agent said: ${statusText}`] : [];
  switch (state) {
    case 'TASK_STATE_FAILED':
      return { kind: 'REMOTE_FAILED', reasons: ['remote task FAILED', ...said] };
    case 'TASK_STATE_REJECTED':
      return { kind: 'REMOTE_REJECTED', reasons: ['agent refused the work (REJECTED)', ...said] };
    case 'TASK_STATE_CANCELED':
      return { kind: 'CANCELED', reasons: ['remote task CANCELED by the agent', ...said] };
    default:
      return undefined;
  }
}

/**
 * Identifies one remote status. After we answer a question, the agent's first reply (and a GetTask
 * right after) may still show the question we answered; only a status with another key is news.
 */
export function statusKey(snapshot: Pick<RemoteSnapshot, 'state' | 'remoteTimestamp' | 'statusMessageId'>): string {
  return `${snapshot.state}|${snapshot.remoteTimestamp ?? ''}|${snapshot.statusMessageId ?? ''}`;
}

/** `statusKey` of a wire TaskStatus (a stream event's or GetTask's), the same key its snapshot gets. */
export function statusKeyOf(status: { state: RemoteSnapshot['state']; timestamp?: string; message?: { messageId?: string } }): string {
  return statusKey({ state: status.state, remoteTimestamp: status.timestamp, statusMessageId: status.message?.messageId });
}
