/**
 * Who a bearer token is, on every surface: a static token of `api.callers` (development, services
 * with a shared secret), else a JWT from a configured issuer. One answer for every failure.
 */
import type { BatonConfig } from '../config/schema';
import { bearerToken, CallerTokens } from './caller-tokens';
import { IssuerTokens } from './issuer-tokens';
import type { Principal } from './permissions';

export class Callers {
  constructor(
    readonly tokens: CallerTokens,
    readonly issuers: IssuerTokens = new IssuerTokens([]),
    /** Hears why a JWT was refused (for the server's log; never the token). */
    private readonly onRefusedJwt?: (why: string) => void,
  ) {}

  /** The static callers as they are, for embedding and tests. */
  static of(tokens: CallerTokens | Callers): Callers {
    return tokens instanceof Callers ? tokens : new Callers(tokens);
  }

  static fromConfig(config: Pick<BatonConfig, 'api'>, tokens: CallerTokens, onRefusedJwt?: (why: string) => void): Callers {
    return new Callers(tokens, new IssuerTokens(config.api.issuers), onRefusedJwt);
  }

  /** The caller an `Authorization: Bearer …` header names, with what it may do, or undefined. */
  async principalFor(authorization: string | undefined): Promise<Principal | undefined> {
    const token = bearerToken(authorization);
    if (!token) return undefined;
    const known = this.tokens.principalFor(token);
    if (known || !this.issuers.size) return known;
    return this.issuers.principalFor(token, this.onRefusedJwt);
  }
}
