/**
 * Callers that bring JWT access tokens from their own identity provider: each token is verified
 * against its issuer's published keys (fetched once, refetched when a token names a key id not yet
 * seen, at most every 30 s), its issuer, audience, expiry and not-before, and an allowlist of
 * asymmetric algorithms; then its claims name the caller and its scopes what it may do.
 */
import type { JWTPayload } from 'jose' with { 'resolution-mode': 'import' };
import type { IssuerConfig } from '../config/identity-schema';
import { CallerSchema } from '../shared/delegation-types';
import { TENANT_NAME } from '../shared/ids';
import { readDiscovery } from './discovery';
import { PERMISSIONS, type Permission, type Principal } from './permissions';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
let jose: Promise<Jose> | undefined;
/** jose is an ES module: loaded on first use. */
export const loadJose = (): Promise<Jose> => (jose ??= import('jose'));

/** A JWT's compact form: three base64url parts, the signature not empty. Longer than 8 KiB is refused unread. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeJwt = (token: string): boolean => token.length <= 8192 && JWT_SHAPE.test(token);

/** The claim at `name` (dotted for nested objects), when it is a string. */
function claimOf(payload: JWTPayload, name: string): string | undefined {
  let v: unknown = payload;
  for (const key of name.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The caller and permissions a verified payload names under `mapping`, or undefined when it names none that is valid. */
export function principalOf(
  payload: JWTPayload,
  mapping: Pick<IssuerConfig, 'tenant' | 'tenantClaim' | 'userClaim'>,
  may: ReadonlySet<Permission>,
  via: Principal['via'],
): Principal | undefined {
  const tenant = mapping.tenant ?? claimOf(payload, mapping.tenantClaim as string);
  const user = claimOf(payload, mapping.userClaim);
  // A tenant prefixes the ids its callers choose: one with `:` or `/` could reach into another's.
  if (!tenant || !TENANT_NAME.test(tenant)) return undefined;
  const parsed = CallerSchema.safeParse({ tenant, user });
  return parsed.success ? { caller: parsed.data, may, via } : undefined;
}

/** The permissions the token's scopes (`scope`, space-separated, or `scp`, a list) grant under `issuer`. */
export function grantedBy(payload: JWTPayload, scopes: IssuerConfig['scopes']): Set<Permission> {
  const raw = payload.scope ?? payload.scp;
  const held = new Set(typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw.map(String) : []);
  return new Set(PERMISSIONS.filter((p) => held.has(scopes[p])));
}

export class IssuerTokens {
  private readonly keySets = new Map<string, Promise<ReturnType<Jose['createRemoteJWKSet']>>>();

  constructor(
    private readonly issuers: readonly IssuerConfig[],
    /** The shortest pause between two fetches of an issuer's keys for unknown key ids. Default 30 s: made-up key ids cost nothing. */
    private readonly cooldownMs = 30_000,
  ) {}

  get size(): number {
    return this.issuers.length;
  }

  private keysOf(issuer: IssuerConfig): Promise<ReturnType<Jose['createRemoteJWKSet']>> {
    let keys = this.keySets.get(issuer.issuer);
    if (!keys) {
      keys = (async () => {
        const { createRemoteJWKSet } = await loadJose();
        const uri = new URL(issuer.jwksUri ?? (await readDiscovery(issuer.issuer)).jwks_uri);
        return createRemoteJWKSet(uri, { cooldownDuration: this.cooldownMs, cacheMaxAge: 10 * 60_000, timeoutDuration: 10_000 });
      })();
      // A failed discovery is tried again on the next token, not remembered.
      keys.catch(() => this.keySets.delete(issuer.issuer));
      this.keySets.set(issuer.issuer, keys);
    }
    return keys;
  }

  /**
   * The caller a JWT names when it verifies under a configured issuer, else undefined (any reason:
   * the refusal says nothing about which check failed). `onError` hears why, for the server's log.
   */
  async principalFor(token: string, onError?: (why: string) => void): Promise<Principal | undefined> {
    if (!looksLikeJwt(token)) return undefined;
    const { decodeJwt, jwtVerify } = await loadJose();
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return undefined;
    }
    const issuer = this.issuers.find((i) => i.issuer === iss);
    if (!issuer) return undefined;
    try {
      const { payload } = await jwtVerify(token, await this.keysOf(issuer), {
        issuer: issuer.issuer,
        audience: issuer.audience,
        algorithms: [...issuer.algorithms],
        clockTolerance: issuer.clockToleranceSeconds,
        requiredClaims: ['exp'],
      });
      return principalOf(payload, issuer, grantedBy(payload, issuer.scopes), 'jwt');
    } catch (err) {
      onError?.(`${issuer.issuer}: ${(err as { code?: string }).code ?? (err as Error).message}`);
      return undefined;
    }
  }
}
