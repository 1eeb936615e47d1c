/**
 * `baton config check`'s account of identity: which identity each agent and each class of caller
 * would use, and what of it cannot be read on this machine. It names variables and files, never what
 * they hold.
 */
import { readFileSync } from 'node:fs';
import type { BatonConfig } from '../../config/schema';
import type { AgentEntry } from '../../config/schema';
import type { SecretSource } from '../../config/identity-schema';
import { readPrivateKey, readSecret } from '../../secrets/read-secret';
import { hasConfiguredCallers } from '../../auth/listeners';

export interface IdentityReport {
  /** Per agent: how Baton proves who it is to it. */
  agents: Record<string, string>;
  /** Per class of caller: how it proves who it is to Baton. */
  callers: string[];
}

const source = (s: SecretSource): string => (s.fromEnv ? `$${s.fromEnv}` : `file ${s.fromFile}`);

/** How Baton authenticates to the agent of `entry`, in words. */
export function agentIdentity(entry: AgentEntry): string {
  const parts: string[] = [];
  if (entry.oauth2) {
    const o = entry.oauth2;
    const where = o.tokenUrl ?? `the card's token endpoint on ${o.cardTokenOrigins.join(', ')}`;
    const how = o.clientSecret
      ? `${o.authMethod} with the secret in ${source(o.clientSecret)}`
      : `private_key_jwt with the key in ${o.privateKeyJwt?.keyFile}`;
    parts.push(
      `OAuth 2.0 client credentials at ${where} as client ${o.clientId} (${how})${o.scopes.length ? `, scopes ${o.scopes.join(' ')}` : ''}${o.audience ? `, audience ${o.audience}` : ''}${o.resource ? `, resource ${o.resource}` : ''}`,
    );
  }
  if (entry.apiKey) parts.push(`API key in ${entry.apiKey.in} ${entry.apiKey.name} from ${source(entry.apiKey)}`);
  if (entry.auth) parts.push(`header ${entry.auth.header}${entry.auth.scheme ? ` (${entry.auth.scheme})` : ''} from ${source(entry.auth)}`);
  if (entry.tls) parts.push(`client certificate ${entry.tls.certFile}`);
  return parts.length ? parts.join('; ') : 'none (anonymous)';
}

/** What of the agents' identity cannot be read now, as a worker would read it. */
export function agentIdentityProblems(config: Pick<BatonConfig, 'agents'>): string[] {
  const problems: string[] = [];
  const readable = (s: SecretSource, field: string) => {
    try {
      readSecret(s, field);
    } catch (err) {
      problems.push(`${(err as Error).message}; set it before a worker calls the agent`);
    }
  };
  for (const [name, entry] of Object.entries(config.agents)) {
    const at = `agents.${name}`;
    if (entry.oauth2?.clientSecret) readable(entry.oauth2.clientSecret, `${at}.oauth2.clientSecret`);
    const keyFile = entry.oauth2?.privateKeyJwt?.keyFile;
    if (keyFile) {
      try {
        readPrivateKey(keyFile, `${at}.oauth2.privateKeyJwt.keyFile`);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    if (entry.apiKey) readable(entry.apiKey, `${at}.apiKey`);
    for (const file of entry.tls ? [entry.tls.certFile, entry.tls.keyFile, ...(entry.tls.caFile ? [entry.tls.caFile] : [])] : []) {
      try {
        readFileSync(file);
      } catch {
        problems.push(`${at}.tls: ${file} cannot be read; give the worker the client certificate's files`);
      }
    }
    if (entry.oauth2?.tokenUrl?.startsWith('http:') && !entry.allowHttp)
      problems.push(`${at}.oauth2.tokenUrl is plain http: set ${at}.allowHttp (loopback providers only) or use https`);
  }
  return problems;
}

/** Who may call, by class, in words. */
export function callerIdentities(config: Pick<BatonConfig, 'api'>): string[] {
  const lines: string[] = [];
  const api = config.api;
  if (api.callers.length)
    lines.push(
      `static bearer tokens: ${api.callers.length} caller(s) (${api.callers.map((c) => `${c.tenant}/${c.user} from $${c.tokenFromEnv}`).join(', ')})`,
    );
  for (const i of api.issuers)
    lines.push(
      `JWT access tokens from ${i.issuer} (audience ${i.audience}, ${i.algorithms.join('/')}, keys from ${i.jwksUri ?? 'discovery'}; tenant ${i.tenant ?? `from claim ${i.tenantClaim}`}, user from claim ${i.userClaim})`,
    );
  if (!hasConfiguredCallers(config)) lines.push('a token generated at start for the config caller (loopback only)');
  const oidc = api.signIn?.oidc;
  if (oidc)
    lines.push(
      `web app operators: OpenID Connect at ${oidc.issuer} as client ${oidc.clientId}${oidc.clientSecret ? ` (secret in ${source(oidc.clientSecret)})` : ' (public, PKCE)'}; tenant ${oidc.tenant ?? `from claim ${oidc.tenantClaim}`}, may ${oidc.permissions.join(', ')}`,
    );
  else lines.push('web app operators: a token (the sign-in link, or pasted)');
  return lines;
}

/** What of the callers' identity cannot be read now. */
export function callerIdentityProblems(config: Pick<BatonConfig, 'api'>): string[] {
  const secret = config.api.signIn?.oidc.clientSecret;
  if (!secret) return [];
  try {
    readSecret(secret, 'api.signIn.oidc.clientSecret');
    return [];
  } catch (err) {
    return [`${(err as Error).message}; set it before starting baton ui`];
  }
}

export function identityReport(config: BatonConfig): IdentityReport {
  return {
    agents: Object.fromEntries(Object.entries(config.agents).map(([name, entry]) => [name, agentIdentity(entry)])),
    callers: callerIdentities(config),
  };
}
