/**
 * Local acceptance: a named policy turns a remote result into ACCEPTED or REJECTED (or a review).
 */
import { failure } from '../src/a2a/errors';
import type { Candidate, Decision } from '../src/acceptance/policies';
import { needsNotice } from '../src/shared/acceptance-rule';
import { FailureType } from '../src/shared/failure-types';
import type { ActivityContext } from './context';

export function acceptanceActivities(ctx: ActivityContext) {
  const { policies } = ctx.deps;
  const { logger } = ctx;
  return {
    async evaluateAcceptance(input: { delegationId: string; policy: string; candidate: Candidate }): Promise<Decision> {
      const policy = policies.get(input.policy);
      if (!policy)
        throw failure(FailureType.CONFIG_INVALID, `unknown acceptance policy "${input.policy}"; known: ${policies.names().join(', ')}`);
      const decision = await policy(input.candidate);
      logger[needsNotice(decision) ? 'info' : 'debug'](
        { delegationId: input.delegationId, policy: input.policy, accepted: decision.accepted, reasons: decision.reasons },
        'acceptance decided',
      );
      return decision;
    },
  };
}
