/**
 * The door every caller-facing surface opens the same way: the source address's allowance for unknown
 * tokens first (nothing is read from an address that has used it up), then the token, then the
 * caller's request budget. Nothing of a request's body has been read yet when it runs.
 */
import type { CallerTokens } from '../auth/caller-tokens';
import { BatonError } from '../shared/baton-error';
import type { Caller } from '../shared/delegation-types';
import type { CallerBudget } from './caller-budget';
import { defaultBudget } from './configured-budget';

export class CallerGate {
  constructor(
    readonly tokens: CallerTokens,
    readonly budget: CallerBudget,
  ) {}

  /** A gate with the default limits kept in this process (`rateLimit` for requests): for embedding and tests. */
  static withDefaults(tokens: CallerTokens, rateLimit?: { requestsPerMinute: number; burst: number }): CallerGate {
    return new CallerGate(tokens, defaultBudget(rateLimit));
  }

  /**
   * The caller an `Authorization` header names, admitted for one request from `address`; throws
   * Unauthorized (a missing or unknown token, counted against the address) or RateLimitedError.
   */
  async admit(
    authorization: string | undefined,
    address: string | undefined,
    said = 'send Authorization: Bearer <token> with a token this server knows',
  ): Promise<Caller> {
    await this.budget.checkSource(address);
    const caller = this.tokens.callerFor(authorization);
    if (!caller) {
      await this.budget.unknownToken(address);
      throw new BatonError('Unauthorized', said);
    }
    await this.budget.admit(caller);
    return caller;
  }
}
