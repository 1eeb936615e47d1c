/**
 * A delegation's audit trail read from its history (docs/data-use.md): the request in its start
 * event and every answer, authorization, review and cancel in its accepted Updates (and Signals),
 * each with the caller who sent it and a digest of what it said, put beside its record
 * (`auditTrail`). Every run of a delegation that continued as new is read, oldest first.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { auditTrail, type AuditFact, type AuditTrail, type DelegationOrigin } from '../shared/audit-trail';
import type { DelegationInput, DelegationRecord } from '../shared/delegation-types';
import { SA_SERVICE } from '../shared/search-attributes';

type Event = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayload[] | null | undefined;

/** The digest of what a caller sent, as JSON. */
const digest = (value: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('hex');

const timeOf = (e: Event): string => {
  const t = e.eventTime;
  return t?.seconds != null ? new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() : '';
};

/** The audit trail of delegation `id`, whose `record` the caller may read (checked by the caller). */
export async function readAuditTrail(client: Client, id: string, record: DelegationRecord): Promise<AuditTrail> {
  const description = await client.workflow.getHandle(id).describe();
  const decode = (payloads: Payloads): Promise<unknown> =>
    decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads ?? [], {
      type: 'workflow',
      namespace: client.options.namespace,
      workflowId: id,
    });
  const runs: Event[][] = [];
  for (let runId: string | undefined = description.runId; runId;) {
    const events: Event[] = (await client.workflow.getHandle(id, runId).fetchHistory()).events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  const origin: DelegationOrigin = {};
  const service = description.typedSearchAttributes.get(SA_SERVICE);
  if (service) origin.service = service;
  // Refused Signals are in the record; each is taken off one Signal of the same request and sender.
  const refused = new Map<string, number>();
  for (const r of record.refusedSignals) {
    const key = `${r.requestId}\u0000${r.by}`;
    refused.set(key, (refused.get(key) ?? 0) + 1);
  }
  const facts: AuditFact[] = [];
  for (const [run, events] of runs.entries()) {
    for (const event of events) {
      const started = event.workflowExecutionStartedEventAttributes;
      if (started && run === 0) {
        const input = (await decode(started.input?.payloads)) as DelegationInput;
        if (input.notify?.settled) origin.graph = input.notify.workflowId;
        const n = input.parts.length;
        facts.push({
          at: timeOf(event),
          kind: 'request',
          by: `${input.tenant}/${input.owner}`,
          sha256: digest(input.parts),
          summary: `the request, ${n} part${n === 1 ? '' : 's'}`,
        });
      }
      const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      const signal = event.workflowExecutionSignaledEventAttributes;
      const name =
        update?.name ??
        (signal?.signalName === 'answerSignal' ? 'answer' : signal?.signalName === 'authorizeSignal' ? 'authorize' : undefined);
      if (!name || !['answer', 'authorize', 'review', 'cancel'].includes(name)) continue;
      const payload = (await decode(update ? update.args?.payloads : signal?.input?.payloads)) as Record<string, unknown> & {
        caller?: { tenant: string; user: string };
        requestId?: string;
      };
      const by = payload.caller ? `${payload.caller.tenant}/${payload.caller.user}` : 'unknown';
      if (signal) {
        const key = `${payload.requestId}\u0000${by}`;
        const left = refused.get(key) ?? 0;
        if (left > 0) {
          refused.set(key, left - 1);
          continue;
        }
      }
      facts.push(factOf(name as AuditFact['kind'], timeOf(event), by, payload));
    }
  }
  return auditTrail(record, facts, origin, description.closeTime?.toISOString());
}

function factOf(kind: AuditFact['kind'], at: string, by: string, payload: Record<string, unknown>): AuditFact {
  switch (kind) {
    case 'answer': {
      const parts = (payload.parts as unknown[] | undefined) ?? [];
      return {
        at,
        kind,
        by,
        sha256: digest(parts),
        summary: `answer to ${String(payload.requestId)}, ${parts.length} part${parts.length === 1 ? '' : 's'}`,
      };
    }
    case 'authorize':
      // Only the credential's name is in history; the value never is.
      return {
        at,
        kind,
        by,
        sha256: digest(payload.credential),
        summary: `credential ${String(payload.credential)} for ${String(payload.requestId)}`,
      };
    case 'review':
      return {
        at,
        kind,
        by,
        sha256: digest({ decision: payload.decision, reason: payload.reason }),
        summary: `review: ${String(payload.decision)}`,
      };
    default:
      return {
        at,
        kind,
        by,
        sha256: digest(payload.reason ?? ''),
        summary: `cancel${payload.reason ? `: ${String(payload.reason).slice(0, 100)}` : ''}`,
      };
  }
}
