/**
 * How a workflow refuses a message.
 */
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { SA_BATON_VERSION } from '../src/shared/search-attributes';
import { refuseOutsideWindow } from '../src/shared/support-window';

/**
 * Refuses when `reason` is set: thrown from an Update's validator, it turns the Update away before
 * anything enters history; the client sees the reason (type `Refused`).
 */
export function refuse(reason: string | undefined): void {
  if (reason) throw ApplicationFailure.nonRetryable(reason, 'Refused');
}

/**
 * The Baton version that started this workflow (`BatonVersion`), once it is known to be one this
 * release runs; a history from before the support window is refused. 👉 With a plain Error, which
 * fails the workflow task, not the workflow: the history stays as it is, and a worker that can run it
 * (an older release's) takes it up.
 */
export function startedInWindow(kind: 'delegation' | 'graph'): string | undefined {
  const startedBy = workflowInfo().typedSearchAttributes.get(SA_BATON_VERSION);
  const outside = refuseOutsideWindow(kind, startedBy);
  if (outside) throw new Error(outside);
  return startedBy;
}
