/**
 * What a failure that reached the workflow means for the delegation: an ERROR outcome whose reason
 * starts with the failure's type. Cancellation and anything that is not a failure (a bug) are not
 * outcomes: they are thrown again.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { Outcome } from './delegation-types';
import { isPermanentFailure } from './failure-types';

/** The ERROR outcome for `err`; `maxAttempts` is how often a retryable activity was tried before it gave up. */
export function outcomeOfFailure(err: unknown, maxAttempts: number): Outcome {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    const cause = err.cause;
    const type = cause.type ?? 'Error';
    return {
      kind: 'ERROR',
      reasons: [`${isPermanent(cause) ? type : `${type} (gave up after ${maxAttempts} attempts)`}: ${cause.message}`],
    };
  }
  if (err instanceof ActivityFailure) {
    return { kind: 'ERROR', reasons: [`${err.cause?.name ?? 'ActivityFailure'}: ${err.cause?.message ?? err.message}`] };
  }
  // A local activity's failure arrives unwrapped; so does one the workflow raises about the agent.
  if (err instanceof ApplicationFailure) return { kind: 'ERROR', reasons: [`${err.type ?? 'Error'}: ${err.message}`] };
  throw err;
}

/** Whether `err` (an activity's failure, wrapped or not) says trying again cannot help. */
export function isPermanent(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && (cause.nonRetryable || isPermanentFailure(cause.type));
}
