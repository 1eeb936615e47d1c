/**
 * The delegation a Nexus operation token names. Temporal's workflow-run token is base64url JSON
 * (`{"t":1,"ns":…,"wid":…}`); a caller holds it on its operation handle, so it may name the
 * delegation by it. The token is only a name: every operation still checks the delegation is its tenant's.
 */

/** The workflow id in `value`, or undefined when it is not a workflow-run operation token. */
export function workflowIdOfToken(value: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{8,1000}$/.test(value)) return undefined;
  try {
    const token = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    if (typeof token !== 'object' || token === null) return undefined;
    const { t, wid } = token as { t?: unknown; wid?: unknown };
    return t === 1 && typeof wid === 'string' && wid.length > 0 ? wid : undefined;
  } catch {
    return undefined;
  }
}
