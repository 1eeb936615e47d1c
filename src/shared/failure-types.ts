/**
 * The failure taxonomy, named by what the caller should do. Activities throw `ApplicationFailure`s of
 * these types; the workflow turns the non-retryable ones into an `ERROR` outcome with the reason.
 */
export const FailureType = {
  /** Network fault, 5xx, 429: try again later (honours Retry-After). */
  RETRY_LATER: 'RetryLater',
  /** The agent answered with something that is not valid A2A 1.0: do not retry, record ERROR. */
  INVALID_AGENT_RESPONSE: 'InvalidAgentResponse',
  /** The agent refused the call (auth, version, unsupported operation, unknown task): do not retry. */
  AGENT_REFUSED: 'AgentRefused',
  /** Our trust policy refused the agent (card, origin, address): fix the config or the agent. */
  TRUST_REFUSED: 'TrustRefused',
  /** Our own configuration is wrong (unknown agent, unknown policy): fix the config. */
  CONFIG_INVALID: 'ConfigInvalid',
  /** The data may not go to this agent (its labels, the agent's clearance, its terms): relabel it, clear the agent, or choose another. */
  DATA_REFUSED: 'DataRefused',
  /**
   * Not a fault: a sparse read found the task still working. The attempt fails as benign so that
   * Temporal reads again after `sparsePoll.every`; it never reaches the workflow as an outcome.
   */
  REMOTE_TASK_ACTIVE: 'RemoteTaskActive',
} as const;
export type FailureTypeName = (typeof FailureType)[keyof typeof FailureType];

/** The types no retry can fix. */
export const NON_RETRYABLE_FAILURES: FailureTypeName[] = [
  FailureType.INVALID_AGENT_RESPONSE,
  FailureType.AGENT_REFUSED,
  FailureType.TRUST_REFUSED,
  FailureType.CONFIG_INVALID,
  FailureType.DATA_REFUSED,
];

/** True for a failure type that no retry can fix. */
export function isPermanentFailure(type: string | undefined | null): boolean {
  return (NON_RETRYABLE_FAILURES as string[]).includes(type ?? '');
}
