/**
 * An agent card's security requirements against what the agent's entry can present: checked at
 * resolve, so a delegation that could not authenticate is refused with one line before anything is
 * sent. Also where an OAuth token endpoint named by the card may come from: only an origin the entry
 * lists, so a card never chooses where a client secret goes. Pure: reads the card's JSON form.
 */
import type { AgentEntry } from '../config/schema';
import { objectOf } from '../shared/plain-object';

type Json = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** One scheme of a card, in the form the check needs. */
export type CardScheme =
  | { kind: 'http'; scheme: string }
  | { kind: 'apiKey'; location: string; name: string }
  | { kind: 'oauth2'; tokenUrl?: string }
  | { kind: 'openIdConnect'; url: string }
  | { kind: 'mtls' }
  | { kind: 'unknown' };

/**
 * A scheme as a 1.0 card (oneof members), a 0.3 card (`type`), or the official JS SDK's server (its
 * internal `{ scheme: { $case, value } }`) writes it.
 */
export function schemeOf(raw: unknown): CardScheme {
  const internal = objectOf(objectOf(raw)?.scheme);
  const s = internal && typeof internal.$case === 'string' ? { [internal.$case]: internal.value } : (objectOf(raw) ?? {});
  const http = objectOf(s.httpAuthSecurityScheme) ?? (s.type === 'http' ? s : undefined);
  if (http) return { kind: 'http', scheme: String(http.scheme ?? '') };
  const key = objectOf(s.apiKeySecurityScheme) ?? (s.type === 'apiKey' ? { location: s.in, name: s.name } : undefined);
  if (key) return { kind: 'apiKey', location: String(key.location ?? '').toLowerCase(), name: String(key.name ?? '') };
  const oauth = objectOf(s.oauth2SecurityScheme) ?? (s.type === 'oauth2' ? s : undefined);
  if (oauth) {
    const flows = objectOf(oauth.flows);
    const flow = objectOf(flows?.flow);
    const tokenUrl = (objectOf(flows?.clientCredentials) ?? (flow?.$case === 'clientCredentials' ? objectOf(flow.value) : undefined))
      ?.tokenUrl;
    return { kind: 'oauth2', ...(typeof tokenUrl === 'string' ? { tokenUrl } : {}) };
  }
  const oidc = objectOf(s.openIdConnectSecurityScheme) ?? (s.type === 'openIdConnect' ? s : undefined);
  if (oidc) return { kind: 'openIdConnect', url: String(oidc.openIdConnectUrl ?? '') };
  if (objectOf(s.mtlsSecurityScheme) || s.type === 'mutualTLS') return { kind: 'mtls' };
  return { kind: 'unknown' };
}

/** The card's requirements: alternatives, each a set of scheme names with the scopes they need. */
export function requirementsOf(card: Json): Record<string, string[]>[] {
  const modern = Array.isArray(card.securityRequirements) ? card.securityRequirements : undefined;
  if (modern)
    return modern.map((r) =>
      Object.fromEntries(Object.entries(objectOf(objectOf(r)?.schemes) ?? {}).map(([name, v]) => [name, strings(objectOf(v)?.list)])),
    );
  const legacy = Array.isArray(card.security) ? card.security : [];
  return legacy.map((r) => Object.fromEntries(Object.entries(objectOf(r) ?? {}).map(([name, v]) => [name, strings(v)])));
}

/** Why the entry cannot present `scheme` with `scopes`, as the setting that would, or undefined when it can. */
export function missingFor(agent: string, entry: AgentEntry, scheme: CardScheme, scopes: string[]): string | undefined {
  const at = `agents.${agent}`;
  const authHeader = entry.auth?.header.toLowerCase();
  switch (scheme.kind) {
    case 'http': {
      const wanted = scheme.scheme.toLowerCase();
      if (wanted === 'bearer' && entry.oauth2) return undefined;
      if (authHeader === 'authorization' && entry.auth?.scheme?.toLowerCase() === wanted) return undefined;
      return wanted === 'bearer'
        ? `${at}.oauth2 (client credentials) or ${at}.auth { scheme: Bearer }`
        : `${at}.auth { scheme: ${scheme.scheme} }`;
    }
    case 'apiKey': {
      const k = entry.apiKey;
      const sameName = (a: string) => (scheme.location === 'header' ? a.toLowerCase() === scheme.name.toLowerCase() : a === scheme.name);
      if (k && k.in === scheme.location && sameName(k.name)) return undefined;
      if (scheme.location === 'header' && entry.auth && !entry.auth.scheme && sameName(entry.auth.header)) return undefined;
      return `${at}.apiKey { in: ${scheme.location}, name: ${scheme.name} }`;
    }
    case 'oauth2':
    case 'openIdConnect': {
      if (!entry.oauth2) return `${at}.oauth2 (client credentials${scopes.length ? `, scopes ${scopes.join(' ')}` : ''})`;
      const lacking = scopes.filter((s) => !entry.oauth2?.scopes.includes(s));
      return lacking.length ? `${at}.oauth2.scopes with ${lacking.join(', ')}` : undefined;
    }
    case 'mtls':
      return entry.tls ? undefined : `${at}.tls (a client certificate)`;
    default:
      return 'a scheme Baton does not know';
  }
}

const kindName = (s: CardScheme): string =>
  s.kind === 'http'
    ? `HTTP ${s.scheme}`
    : s.kind === 'apiKey'
      ? `API key in ${s.location} "${s.name}"`
      : s.kind === 'oauth2'
        ? 'OAuth 2.0'
        : s.kind === 'openIdConnect'
          ? 'OpenID Connect'
          : s.kind === 'mtls'
            ? 'mutual TLS'
            : 'unknown';

/**
 * Why the entry cannot satisfy any of the card's requirements (one line naming the scheme and the
 * setting that would), or undefined when one is satisfied or the card requires nothing.
 */
export function refuseCardSecurity(agent: string, entry: AgentEntry, card: Json): string | undefined {
  const requirements = requirementsOf(card).filter((r) => Object.keys(r).length);
  if (!requirements.length) return undefined;
  const schemes = objectOf(card.securitySchemes) ?? {};
  const unmet: string[] = [];
  for (const requirement of requirements) {
    const missing = Object.entries(requirement)
      .map(([name, scopes]) => {
        const scheme = schemeOf(schemes[name]);
        const fix = missingFor(agent, entry, scheme, scopes);
        return fix ? `scheme "${name}" (${kindName(scheme)}): set ${fix}` : undefined;
      })
      .filter((m): m is string => !!m);
    if (!missing.length) return undefined;
    unmet.push(missing.join(' and '));
  }
  return `agent ${agent}: its card requires authentication this entry cannot present: ${unmet.join('; or ')}`;
}

/** Where the card says OAuth tokens come from: its client credentials token URLs, and its OpenID discovery URLs. */
export function cardTokenSources(card: Json): { tokenUrls: string[]; discoveryUrls: string[] } {
  const tokenUrls: string[] = [];
  const discoveryUrls: string[] = [];
  for (const raw of Object.values(objectOf(card.securitySchemes) ?? {})) {
    const s = schemeOf(raw);
    if (s.kind === 'oauth2' && s.tokenUrl) tokenUrls.push(s.tokenUrl);
    if (s.kind === 'openIdConnect' && s.url) discoveryUrls.push(s.url);
  }
  return { tokenUrls, discoveryUrls };
}

/** Whether `url` is on one of `origins`. */
export function onOrigins(url: string, origins: readonly string[]): boolean {
  try {
    const o = new URL(url).origin;
    return origins.some((allowed) => new URL(allowed).origin === o);
  } catch {
    return false;
  }
}
