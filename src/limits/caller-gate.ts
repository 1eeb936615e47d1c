/**
 * The door every caller-facing surface opens the same way: the source address's allowance for unknown
 * tokens first (nothing is read from an address that has used it up), then the token (static or a
 * verified JWT), then the caller's request budget. Nothing of a request's body has been read yet when
 * it runs; what the request needs (`Permission`) is checked where the surface knows it.
 */
import { CallerTokens } from '../auth/caller-tokens';
import { Callers } from '../auth/callers';
import { refusePermission, type Permission, type Principal } from '../auth/permissions';
import { BatonError } from '../shared/baton-error';
import type { CallerBudget } from './caller-budget';
import { defaultBudget } from './configured-budget';

export class CallerGate {
  readonly callers: Callers;

  constructor(
    callers: CallerTokens | Callers,
    readonly budget: CallerBudget,
  ) {
    this.callers = Callers.of(callers);
  }

  /** The static tokens (what a development server prints). */
  get tokens(): CallerTokens {
    return this.callers.tokens;
  }

  /** A gate with the default limits kept in this process (`rateLimit` for requests): for embedding and tests. */
  static withDefaults(callers: CallerTokens | Callers, rateLimit?: { requestsPerMinute: number; burst: number }): CallerGate {
    return new CallerGate(callers, defaultBudget(rateLimit));
  }

  /**
   * The caller an `Authorization` header names, admitted for one request from `address`; throws
   * Unauthorized (a missing, unknown or invalid token, counted against the address) or RateLimitedError.
   */
  async admit(
    authorization: string | undefined,
    address: string | undefined,
    said = 'send Authorization: Bearer <token> with a token this server knows',
  ): Promise<Principal> {
    await this.budget.checkSource(address);
    const principal = await this.callers.principalFor(authorization);
    if (!principal) {
      await this.budget.unknownToken(address);
      throw new BatonError('Unauthorized', said);
    }
    await this.budget.admit(principal.caller);
    return principal;
  }

  /** A caller already known (a web app session), admitted for one request: its budget only. */
  async admitKnown(principal: Principal): Promise<Principal> {
    await this.budget.admit(principal.caller);
    return principal;
  }
}

/** Throws Forbidden when `principal` may not do what needs `need`. */
export function requirePermission(principal: Principal, need: Permission): void {
  const why = refusePermission(principal.may, need);
  if (why) throw new BatonError('Forbidden', why);
}
