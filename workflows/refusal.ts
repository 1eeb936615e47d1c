/**
 * How a workflow refuses a message.
 */
import { ApplicationFailure } from '@temporalio/workflow';

/**
 * Refuses when `reason` is set: thrown from an Update's validator, it turns the Update away before
 * anything enters history; the client sees the reason (type `Refused`).
 */
export function refuse(reason: string | undefined): void {
  if (reason) throw ApplicationFailure.nonRetryable(reason, 'Refused');
}
