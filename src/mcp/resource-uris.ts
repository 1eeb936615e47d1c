/**
 * The MCP resource URIs Baton serves: a delegation's record, and each of its artifacts by digest.
 */
export const DELEGATION_TEMPLATE = 'baton://delegations/{id}';
export const ARTIFACT_TEMPLATE = 'baton://delegations/{id}/artifacts/{sha256}';

export const delegationUri = (id: string): string => `baton://delegations/${encodeURIComponent(id)}`;
export const artifactUri = (id: string, sha256: string): string => `${delegationUri(id)}/artifacts/${sha256}`;

/** The delegation a `baton://delegations/…` URI names (its record or one of its artifacts), or undefined. */
export function delegationOfUri(uri: string): string | undefined {
  const m = /^baton:\/\/delegations\/([^/]+)(?:\/artifacts\/[0-9a-f]{64})?$/.exec(uri);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1] as string);
  } catch {
    return undefined;
  }
}
