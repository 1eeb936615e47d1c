/**
 * What Baton presents to one agent on each call, read or fetched when the call is made: the entry's
 * static header (`auth`), an OAuth 2.0 access token (`oauth2`), an API key where the card says
 * (`apiKey`). The client certificate (`tls`) is the connection's. Nothing of it is kept elsewhere.
 */
import type { AgentAuth, AgentEntry } from '../config/schema';
import { readSecret } from '../secrets/read-secret';
import { agentTokens, type AgentTokens } from './agent-tokens';
import type { Lookup } from './guarded-fetch';

export interface CallCredentials {
  /** Headers to set (lower-case names, as gRPC metadata wants them). */
  headers: Record<string, string>;
  /** A query parameter to add (an API key the card wants in the query). */
  query?: { name: string; value: string };
  /** The OAuth access token sent, to forget when the agent refuses it. */
  token?: string;
}

/** The credentials of one call to `agent` now; an OAuth token from the cache, or fetched. */
export async function credentialsFor(
  agent: string,
  entry: AgentEntry,
  opts: { lookup?: Lookup; tokens?: AgentTokens } = {},
): Promise<CallCredentials> {
  const out: CallCredentials = { headers: {} };
  if (entry.auth) {
    out.headers[entry.auth.header.toLowerCase()] = authValueOf(entry.auth, `agent ${agent}: auth`);
  }
  if (entry.apiKey) {
    const value = readSecret(entry.apiKey, `agents.${agent}.apiKey`);
    if (entry.apiKey.in === 'header') out.headers[entry.apiKey.name.toLowerCase()] = value;
    else if (entry.apiKey.in === 'cookie') out.headers.cookie = `${entry.apiKey.name}=${encodeURIComponent(value)}`;
    else out.query = { name: entry.apiKey.name, value };
  }
  if (entry.oauth2) {
    out.token = await (opts.tokens ?? agentTokens).tokenFor(agent, entry, opts);
    out.headers.authorization = `Bearer ${out.token}`;
  }
  return out;
}

/** Reads the agent's own credential (`auth`) now. Throws MissingCredentialError naming the variable or file. */
export function credentialOf(agentName: string, auth: AgentAuth): string {
  return authValueOf(auth, `agent ${agentName}: auth`);
}

/** The value of an `auth` header (its scheme, then the secret read now); `field` names where it is configured. */
export function authValueOf(auth: AgentAuth, field: string): string {
  const value = readSecret(auth, field);
  return auth.scheme ? `${auth.scheme} ${value}` : value;
}
