/**
 * An OpenID provider's discovery document (`<issuer>/.well-known/openid-configuration`), read for a
 * configured issuer: it must name that very issuer, and carry the endpoints the reader needs.
 */

/** The endpoints of a discovery document Baton uses. */
export interface Discovery {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

/** Reads `issuer`'s discovery document; throws, naming the issuer, when it is missing, names another issuer or lacks `needs`. */
export async function readDiscovery(issuer: string, needs: readonly (keyof Discovery)[] = ['jwks_uri']): Promise<Discovery> {
  const res = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${issuer}: discovery answered HTTP ${res.status}`);
  const doc = (await res.json()) as Partial<Discovery>;
  if (doc.issuer !== issuer) throw new Error(`${issuer}: discovery names another issuer (${String(doc.issuer).slice(0, 200)})`);
  const missing = needs.filter((k) => typeof doc[k] !== 'string');
  if (missing.length) throw new Error(`${issuer}: discovery has no ${missing.join(', ')}`);
  return doc as Discovery;
}
