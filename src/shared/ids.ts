/**
 * Identifiers. Anything we send to an agent is named from the workflow id and a turn number, so a
 * replayed or retried step sends the same id again (never a random one). Ids a caller chooses are
 * kept within its tenant (`<tenant>:<id>`), so tenants never share an id space and none can claim
 * an id Baton makes itself.
 */

/** The messageId of turn `turn` (1-based) of delegation `delegationId`. */
export function turnMessageId(delegationId: string, turn: number): string {
  if (!Number.isInteger(turn) || turn < 1) throw new RangeError(`turn must be a positive integer, got ${turn}`);
  return `${delegationId}/turn-${turn}`;
}

/** Workflow id prefix for delegations started from the CLI or client without an explicit id. */
export const DELEGATION_ID_PREFIX = 'dlg-';

/** Workflow id prefix for graphs started without an explicit id. */
export const GRAPH_ID_PREFIX = 'graph-';

/** Workflow id prefix of served tasks (`a2a-<service>-<key>`). */
export const SERVED_TASK_PREFIX = 'a2a-';

/** Prefixes of the ids Baton makes: no id a caller chooses may start with one. */
export const RESERVED_ID_PREFIXES = [DELEGATION_ID_PREFIX, GRAPH_ID_PREFIX, SERVED_TASK_PREFIX] as const;

/** Between a tenant and an id it chose; a tenant's name never contains it. */
export const TENANT_SEPARATOR = ':';

/** What a tenant's name may be: letters, digits and . _ @ - (never the separator, never a slash). */
export const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/;

/** Why `chosen` cannot be an id a caller of `tenant` chooses (`what`: a delegation, a graph), or undefined. */
export function refuseChosenId(tenant: string, chosen: string, what: string): string | undefined {
  const own = chosen.startsWith(`${tenant}${TENANT_SEPARATOR}`) ? chosen.slice(tenant.length + 1) : chosen;
  if (!own) return `an id for ${what} is not empty`;
  const reserved = RESERVED_ID_PREFIXES.find((p) => own.startsWith(p));
  if (reserved) return `ids starting with ${reserved} are Baton's own: choose another id for ${what}`;
  return undefined;
}

/**
 * The workflow id of an id a caller of `tenant` chose: `<tenant>:<id>` (given with the prefix or without).
 * Baton's own ids (a `dlg-<uuid>`, a served task's) are never scoped: none is a caller's choice.
 */
export function tenantScopedId(tenant: string, chosen: string): string {
  return chosen.startsWith(`${tenant}${TENANT_SEPARATOR}`) ? chosen : `${tenant}${TENANT_SEPARATOR}${chosen}`;
}
