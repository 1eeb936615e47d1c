/**
 * Who is calling the HTTP API: a bearer token maps to one caller (tenant and user). Tokens are
 * compared as SHA-256 digests in constant time, so a wrong guess says nothing about the right one.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiConfig } from '../config/schema';
import type { Caller } from '../shared/delegation-types';
import { EVERY_PERMISSION, type Permission, type Principal } from './permissions';

/** A token's SHA-256: tokens are kept and compared only as digests. */
export const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The token of an `Authorization: Bearer …` header, or undefined. */
export const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];

export class CallerTokens {
  private readonly entries: { digest: Buffer; caller: Caller; may: ReadonlySet<Permission> }[];

  constructor(entries: { token: string; caller: Caller; permissions?: readonly Permission[] }[]) {
    this.entries = entries.map((e) => ({
      digest: digest(e.token),
      caller: e.caller,
      may: e.permissions ? new Set(e.permissions) : EVERY_PERMISSION,
    }));
  }

  /**
   * The configured callers, each token read from its environment variable. A variable that is unset,
   * shorter than 16 characters or another caller's token too is an error (`callerTokenProblems`).
   */
  static fromConfig(api: ApiConfig, env: NodeJS.ProcessEnv = process.env): CallerTokens {
    const [problem] = callerTokenProblems(api, env);
    if (problem) throw new Error(problem);
    return new CallerTokens(
      api.callers.map((c) => ({
        token: env[c.tokenFromEnv] as string,
        caller: { tenant: c.tenant, user: c.user },
        ...(c.permissions ? { permissions: c.permissions } : {}),
      })),
    );
  }

  /** One fresh random token for one caller: the development default when no callers are configured. */
  static single(caller: Caller, token = randomBytes(24).toString('base64url')): { tokens: CallerTokens; token: string } {
    return { tokens: new CallerTokens([{ token, caller }]), token };
  }

  get size(): number {
    return this.entries.length;
  }

  /** The caller an `Authorization: Bearer …` header names, or undefined. */
  callerFor(authorization: string | undefined): Caller | undefined {
    const token = bearerToken(authorization);
    return token ? this.principalFor(token)?.caller : undefined;
  }

  /** The caller `token` is, with what it may do, or undefined. */
  principalFor(token: string): Principal | undefined {
    const given = digest(token);
    let found: Principal | undefined;
    // Every entry is compared, found or not, so timing does not tell how far the list was read.
    for (const e of this.entries) if (timingSafeEqual(e.digest, given) && !found) found = { caller: e.caller, may: e.may, via: 'token' };
    return found;
  }
}

/**
 * What is wrong with the callers' tokens as set in `env`: unset, shorter than 16 characters (a
 * guessable token is worse than none), or the same token given to two callers (a request would act as
 * whichever is listed first). One line per problem; `baton config check` prints them all.
 */
export function callerTokenProblems(api: Pick<ApiConfig, 'callers'>, env: NodeJS.ProcessEnv = process.env): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const c of api.callers) {
    const token = env[c.tokenFromEnv];
    const whose = `api.callers: ${c.tokenFromEnv} (the token of ${c.tenant}/${c.user})`;
    if (!token || token.length < 16)
      problems.push(`${whose} must be set to at least 16 characters; ${token ? `it holds ${token.length}` : 'it is not set'}`);
    else if (seen.has(token)) problems.push(`${whose} is ${seen.get(token)}'s token too; give each caller its own`);
    if (token) seen.set(token, seen.get(token) ?? `${c.tenant}/${c.user}`);
  }
  return problems;
}
