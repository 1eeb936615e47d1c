/**
 * Who a Nexus operation acts as. The calling namespace comes from the link Temporal's server attaches
 * to every start (the caller workflow's event, `temporal:///namespaces/<ns>/workflows/…`): a caller
 * workflow cannot choose it. The namespace maps to a tenant by configuration (`nexus.callers`); a
 * header may name the user within that tenant only where the operator allows it (`userHeader`).
 */
import type { NexusCallerConfig } from '../config/schema';
import { identifier, type Caller } from '../shared/delegation-types';

/** The Nexus caller a start's links name, or why there is none. */
export type NexusCallerResult = { caller: Caller; namespace: string } | { refusal: string };

const LINK_PATH = /^\/namespaces\/([^/]+)\//;

/** The namespaces a start's links point into (Temporal links only); usually exactly one. */
export function linkedNamespaces(links: readonly { url: URL }[]): string[] {
  const found = new Set<string>();
  for (const link of links) {
    if (link.url.protocol !== 'temporal:') continue;
    const m = LINK_PATH.exec(link.url.pathname);
    if (!m) continue;
    try {
      found.add(decodeURIComponent(m[1] as string));
    } catch {
      // A link that does not decode names nobody.
    }
  }
  return [...found];
}

/** A header's value, whatever the case of its name (Nexus headers are case-insensitive). */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The caller for a start with `links` and `headers`, by the configured `callers`. */
export function nexusCallerOf(
  links: readonly { url: URL }[],
  headers: Readonly<Record<string, string>>,
  callers: readonly NexusCallerConfig[],
): NexusCallerResult {
  const namespaces = linkedNamespaces(links);
  if (namespaces.length !== 1)
    return {
      refusal: namespaces.length
        ? `the operation's links name ${namespaces.length} namespaces; Baton serves operations started by one caller workflow`
        : 'the operation carries no link to a calling workflow, so its namespace is unknown; start it from a workflow',
    };
  const namespace = namespaces[0] as string;
  const entry = callers.find((c) => c.namespace === namespace);
  if (!entry)
    return {
      refusal: `namespace ${JSON.stringify(namespace.slice(0, 255))} is not a Baton caller; an operator lists it under nexus.callers with its tenant`,
    };
  let user = entry.user ?? `nexus:${namespace}`.slice(0, 128);
  if (entry.userHeader) {
    const named = headerValue(headers, entry.userHeader);
    if (named !== undefined) {
      if (!identifier.safeParse(named).success)
        return {
          refusal: `header ${entry.userHeader} must be a user name of 1–128 letters, digits and . _ : @ / - (starting with a letter or digit)`,
        };
      user = named;
    }
  }
  return { caller: { tenant: entry.tenant, user }, namespace };
}
