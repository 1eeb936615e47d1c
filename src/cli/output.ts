/**
 * How the CLI prints: `--json` gives machine-readable JSON on stdout; otherwise short lines for people.
 * Agent-provided text is printed as data, quoted, never interpreted.
 */
import { principalsOf, type AuditTrail } from '../shared/audit-trail';
import type { DelegationRecord } from '../shared/delegation-types';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Exit codes: 0 accepted (or still running), 3 settled with another outcome. Errors use 1, usage 2. */
export function exitCodeOf(record: DelegationRecord): number {
  if (!record.outcome) return 0;
  return record.outcome.kind === 'ACCEPTED' ? 0 : 3;
}

/**
 * Prints a waited-for record (stdout: JSON or the record for people) and returns the exit code. An
 * outcome other than ACCEPTED also gets one line on stderr with its first reason, which says why
 * (and, for an ERROR, what to fix): a script that reads only the exit code and stderr still learns it.
 */
export function reportSettled(record: DelegationRecord, json?: boolean): number {
  if (json) printJson(record);
  else process.stdout.write(`${formatRecord(record)}\n`);
  const outcome = record.outcome;
  if (outcome && outcome.kind !== 'ACCEPTED') {
    process.stderr.write(
      `baton: delegation ${record.id} ended ${outcome.kind}${outcome.reasons[0] ? `: ${oneLine(outcome.reasons[0])}` : ''}\n`,
    );
  }
  return exitCodeOf(record);
}

/** Untrusted text (an agent's words in a reason) on one line, printed as data. */
function oneLine(text: string): string {
  return JSON.stringify(text.length > 500 ? `${text.slice(0, 500)}…` : text).slice(1, -1);
}

export function formatRecord(r: DelegationRecord): string {
  const lines = [
    `delegation  ${r.id}`,
    `agent       ${r.agent.name}${r.agent.interface ? ` (${r.agent.interface.binding} ${r.agent.interface.protocolVersion} at ${r.agent.interface.url})` : ''}`,
    `status      ${r.status}`,
    `started by  Baton ${r.batonVersion ? `v${r.batonVersion}` : 'before 0.2'}`,
  ];
  // The three principals (docs/data-use.md): who raised it, who delegates, who does the work.
  const who = principalsOf(r);
  lines.push(`principals  ${who.user} → ${who.service} → ${who.agent}`);
  r.turns.forEach((t, i) => {
    const use = t.dataUse
      ? `, labels ${t.dataUse.labels.join(', ') || 'none'}, terms ${t.dataUse.conveyed ? `sent${t.dataUse.acknowledged === undefined ? '' : t.dataUse.acknowledged ? ' (acknowledged)' : ' (not acknowledged)'}` : 'not sent'}`
      : '';
    lines.push(`turn ${String(i + 1).padEnd(7)}${t.sentAt} by ${t.by ?? `${r.tenant}/${r.owner}`}${use}`);
  });
  if (r.outcome)
    lines.push(`outcome     ${r.outcome.kind}`, ...r.outcome.reasons.map((reason) => `            - ${JSON.stringify(reason)}`));
  if (r.remote.taskId) lines.push(`remote      task ${r.remote.taskId}, context ${r.remote.contextId ?? '?'}, ${r.remote.state ?? '?'}`);
  for (const change of r.remote.history) lines.push(`            ${change.observedAt}  ${change.state}`);
  if (r.pending) {
    const prompt = r.pending.prompt
      .map((p) => p.text ?? (p.data !== undefined ? JSON.stringify(p.data) : `[${p.mediaType ?? 'file'}]`))
      .join(' ');
    lines.push(`waiting     ${r.pending.kind} request ${r.pending.requestId}`, `            agent asks: ${JSON.stringify(prompt)}`);
  }
  for (const refused of r.refusedSignals ?? []) {
    lines.push(
      `refused     ${refused.signal} signal${refused.requestId ? ` for ${refused.requestId}` : ''}${refused.by ? ` from ${refused.by}` : ''}: ${JSON.stringify(refused.reason)}`,
    );
  }
  if (r.cancel) lines.push(`cancel      by ${r.cancel.by}: ${JSON.stringify(r.cancel.reason)}`);
  if (r.reply) lines.push(`reply       message ${r.reply.messageId} (${r.reply.parts.length} part(s))`);
  for (const a of r.artifacts) {
    lines.push(`artifact    ${a.name ?? '(unnamed)'} ${a.artifactId} ${a.mediaType ?? ''} ${a.size} B sha256:${a.sha256.slice(0, 16)}…`);
  }
  return lines.join('\n');
}

/** The audit trail as lines: the principals, then one line per entry, oldest first. */
export function formatAudit(trail: AuditTrail): string {
  const lines = [
    `delegation  ${trail.id}`,
    `user        ${trail.principals.user}`,
    `service     ${trail.principals.service}`,
    `agent       ${trail.principals.agent}`,
  ];
  for (const e of trail.entries) {
    const use = e.dataUse ? ` [labels ${e.dataUse.labels.join(', ') || 'none'}; terms ${e.dataUse.conveyed ? 'sent' : 'not sent'}]` : '';
    lines.push(`${e.at}  ${e.kind.padEnd(9)} ${e.from} → ${e.to}: ${e.what}${e.sha256 ? ` sha256:${e.sha256.slice(0, 16)}…` : ''}${use}`);
  }
  return lines.join('\n');
}
