/**
 * Per-task push credentials that the webhook can check without a database: an HMAC of the delegation
 * id and the remote task id under a secret that only Baton's workers and webhooks know.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function pushToken(secret: string, delegationId: string, taskId: string): string {
  return createHmac('sha256', secret).update(`${delegationId}\n${taskId}`).digest('base64url');
}

/** Compares in constant time; false for any other delegation, task or secret. */
export function verifyPushToken(secret: string, delegationId: string, taskId: string, given: string): boolean {
  const expected = Buffer.from(pushToken(secret, delegationId, taskId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The token a push call carries: `Authorization: <scheme> <token>` (1.0), or `X-A2A-Notification-Token` (0.3, Python). */
export function tokenFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  const auth = first(headers.authorization);
  if (auth) {
    const space = auth.indexOf(' ');
    return space > 0 ? auth.slice(space + 1).trim() : auth.trim();
  }
  return first(headers['x-a2a-notification-token'])?.trim() || undefined;
}
