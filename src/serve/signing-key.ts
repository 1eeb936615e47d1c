/**
 * Baton's own signing key (`serve.signing`): it signs the served cards (JWS), and the JWT each webhook
 * notification to a caller carries; its public half is published at `/.well-known/jwks.json`, so a
 * receiver verifies without a shared secret.
 */
import { createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error';
import type { ServeConfig } from '../config/schema';
import { loadJose } from '../auth/issuer-tokens';

type Signing = NonNullable<ServeConfig['signing']>;

/** The header a webhook notification's JWT travels in (the Authorization header is the caller's own credential). */
export const NOTIFICATION_JWT_HEADER = 'X-Baton-Notification-JWT';

/** How long a notification's JWT is valid: a receiver refuses it after this. */
export const NOTIFICATION_JWT_TTL_SECONDS = 300;

const keys = new Map<string, KeyObject>();

/**
 * The key of `signing`, read once per process (as the card signer always did): a webhook delivery and
 * a JWKS request use it without reading the file again. ConfigError when it cannot be read.
 */
export function privateKeyOf(signing: Signing): KeyObject {
  let key = keys.get(signing.privateKeyFile);
  if (!key) {
    try {
      key = createPrivateKey(readFileSync(signing.privateKeyFile));
    } catch (err) {
      throw new ConfigError(`serve.signing.privateKeyFile ${signing.privateKeyFile}: ${(err as Error).message}`);
    }
    keys.set(signing.privateKeyFile, key);
  }
  return key;
}

/** The public JWK set of `signing` (one key, with its kid, alg and use). */
export function publicJwks(signing: Signing): { keys: Record<string, unknown>[] } {
  const jwk = createPublicKey(privateKeyOf(signing)).export({ format: 'jwk' }) as Record<string, unknown>;
  return { keys: [{ ...jwk, kid: signing.kid, alg: signing.alg, use: 'sig' }] };
}

/** The claims of one notification: who sent it, for which webhook and task, and the body's SHA-256. */
export interface NotificationClaims {
  /** Baton's public URL (the issuer receivers configure). */
  issuer: string;
  /** The webhook URL the notification is POSTed to. */
  audience: string;
  taskId: string;
  body: string;
}

/** Signs one notification's JWT: `iss`, `aud`, `iat`, `exp` (+300 s), `jti`, `taskId`, `bodySha256`. */
export async function notificationJwt(signing: Signing, claims: NotificationClaims): Promise<string> {
  const { SignJWT } = await loadJose();
  return new SignJWT({ taskId: claims.taskId, bodySha256: createHash('sha256').update(claims.body).digest('base64url') })
    .setProtectedHeader({ alg: signing.alg, kid: signing.kid, typ: 'JWT' })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setIssuedAt()
    .setExpirationTime(`${NOTIFICATION_JWT_TTL_SECONDS}s`)
    .setJti(randomUUID())
    .sign(privateKeyOf(signing));
}
