/**
 * The three principals of a delegation and its audit trail (docs/data-use.md): who sent what to whom,
 * with digests. The user who raised the task (the owner, or whoever answered), the service that
 * delegates (Baton, for the tenant, as a served agent or a graph when it is one), and the agent
 * service that does the remote work (its registry name and the digest of the card it was checked by).
 * Pure: the client reads the history and hands the facts in.
 */
import type { DelegationRecord } from './delegation-types';

/** Who is involved in a delegation, as one line each. */
export interface Principals {
  user: string;
  service: string;
  agent: string;
}

/** What the delegation was started from, besides its record: the served agent or the graph it is part of. */
export interface DelegationOrigin {
  /** The served agent (`serve.services.<name>`) a caller's message came in through. */
  service?: string;
  /** The graph whose node it is. */
  graph?: string;
}

/** One fact of the history: the start (its request) or an accepted Update, with who sent it. */
export interface AuditFact {
  at: string;
  kind: 'request' | 'answer' | 'authorize' | 'review' | 'cancel';
  /** `tenant/user` of the caller. */
  by: string;
  /** The digest of what was sent (parts as JSON, a credential's name, a decision). */
  sha256: string;
  /** What it was, in a few words (never the content). */
  summary: string;
}

/** One line of the audit trail: who sent what to whom, through whom, when, with its digest. */
export interface AuditEntry {
  at: string;
  kind: AuditFact['kind'] | 'artifact' | 'reply' | 'outcome';
  from: string;
  to: string;
  via: string;
  what: string;
  sha256?: string;
  /** For a turn to the agent: its data labels, and whether the terms went with it. */
  dataUse?: { labels: string[]; conveyed: boolean; acknowledged?: boolean };
}

export interface AuditTrail {
  id: string;
  principals: Principals;
  entries: AuditEntry[];
}

/** The delegation's three principals, as its record and origin say. */
export function principalsOf(record: DelegationRecord, origin: DelegationOrigin = {}): Principals {
  const service = origin.service ? `, as served agent ${origin.service}` : origin.graph ? `, for graph ${origin.graph}` : '';
  const card = record.agent.cardSha256 ? ` (card sha256 ${record.agent.cardSha256.slice(0, 16)}…)` : '';
  return {
    user: `user ${record.tenant}/${record.owner}`,
    service: `Baton for tenant ${record.tenant}${service}`,
    agent: `agent ${record.agent.name}${card}`,
  };
}

/**
 * The audit trail of a delegation: what went to the agent (the request and each answer, from the
 * history, with who sent it and the turn's data use from the record), what the agent sent back (its
 * artifacts and direct reply, with their digests), steering (reviews, cancels) and the outcome.
 */
export function auditTrail(
  record: DelegationRecord,
  facts: readonly AuditFact[],
  origin: DelegationOrigin = {},
  closedAt?: string,
): AuditTrail {
  const principals = principalsOf(record, origin);
  const user = (by: string) => `user ${by}`;
  const entries: AuditEntry[] = [];
  // Turns go out in the order the request and the answers were taken.
  const sent = facts.filter((f) => f.kind === 'request' || f.kind === 'answer' || f.kind === 'authorize');
  sent.forEach((fact, i) => {
    const turn = record.turns[i];
    entries.push({
      at: turn?.sentAt ?? fact.at,
      kind: fact.kind,
      from: user(fact.by),
      to: principals.agent,
      via: principals.service,
      what: `turn ${i + 1}: ${fact.summary}${turn ? '' : ' (not sent)'}`,
      sha256: fact.sha256,
      ...(turn?.dataUse ? { dataUse: turn.dataUse } : {}),
    });
  });
  for (const fact of facts.filter((f) => f.kind === 'review' || f.kind === 'cancel'))
    entries.push({
      at: fact.at,
      kind: fact.kind,
      from: user(fact.by),
      to: principals.service,
      via: principals.service,
      what: fact.summary,
      sha256: fact.sha256,
    });
  const received = record.remote.history.at(-1)?.observedAt ?? record.turns.at(-1)?.sentAt ?? '';
  for (const artifact of record.artifacts)
    entries.push({
      at: received,
      kind: 'artifact',
      from: principals.agent,
      to: user(`${record.tenant}/${record.owner}`),
      via: principals.service,
      what: `artifact ${artifact.name ?? artifact.artifactId} (${artifact.size} bytes)`,
      sha256: artifact.sha256,
    });
  if (record.reply)
    entries.push({
      at: received,
      kind: 'reply',
      from: principals.agent,
      to: user(`${record.tenant}/${record.owner}`),
      via: principals.service,
      what: `direct reply ${record.reply.messageId}`,
    });
  if (record.outcome)
    entries.push({
      at: closedAt ?? received,
      kind: 'outcome',
      from: principals.service,
      to: user(`${record.tenant}/${record.owner}`),
      via: principals.service,
      what: `outcome ${record.outcome.kind}`,
    });
  return { id: record.id, principals, entries: entries.sort((a, b) => a.at.localeCompare(b.at)) };
}
