/**
 * What an observing activity is given, and what counts as news.
 */
import { cancellationSignal } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common';
import type { AgentClient } from '../src/a2a/agent-client';
import { failure } from '../src/a2a/errors';
import { FailureType } from '../src/shared/failure-types';
import type { RemoteSnapshot } from '../src/shared/delegation-types';
import { isActive, statusKey } from '../src/shared/remote-state';
import type { TaskInput } from './context';

export interface ObserveInput extends TaskInput {
  /** The status already answered: seeing it again is not news. */
  staleStatusKey?: string;
  /**
   * Calls the delegation may still make (its contract's budget). Observation returns the latest
   * snapshot once it made this many; the workflow, which counts every call, ends the delegation.
   */
  callBudget?: number;
  /**
   * Sparse reads only: return the latest snapshot once this time has passed (epoch ms), with or
   * without news, so the workflow can end a wait that passed the contract's `maxWait`.
   */
  readUntil?: number;
}

/**
 * When an observing activity lets its slot go with no news (epoch ms): `sparsePoll.after` from its
 * start. Undefined for an agent resolved before sparse polls, which is followed until there is news.
 */
export function handOffTime(input: ObserveInput): number | undefined {
  const after = input.agent.sparsePoll?.after;
  return after === undefined ? undefined : Date.now() + msToNumber(after);
}

/** News: the task left its active state, and not for the question we already answered. */
export function isNews(snapshot: Pick<RemoteSnapshot, 'state' | 'remoteTimestamp' | 'statusMessageId'>, stale?: string): boolean {
  return !isActive(snapshot.state) && statusKey(snapshot) !== stale;
}

/** GetTask for the observed task, refused as an invalid response when the agent answers with another. */
export async function getObservedTask(
  client: AgentClient,
  input: TaskInput,
  signal: AbortSignal = cancellationSignal(),
): Promise<Awaited<ReturnType<AgentClient['getTask']>>> {
  const task = await client.getTask(input.taskId, signal);
  if (task.id !== input.taskId) {
    throw failure(FailureType.INVALID_AGENT_RESPONSE, `agent ${input.agent.name}: GetTask ${input.taskId} answered with task ${task.id}`);
  }
  return task;
}
