/**
 * What an MCP tool returns about a delegation: Baton's own fields as they are, everything the agent
 * wrote (its questions, artifact names and text, status reasons) marked untrusted and capped, and
 * the resources that hold the whole record and each artifact's bytes.
 */
import { z } from 'zod';
import { OUTCOMES, DELEGATION_STATUSES, type DelegationRecord } from '../shared/delegation-types';
import { artifactUri, delegationUri } from './resource-uris';
import { isTextMediaType, textOfParts, untrusted, UntrustedTextSchema } from './untrusted';

export const ArtifactViewSchema = z.object({
  /** The agent's id for it (its words: marked, capped). */
  artifactId: UntrustedTextSchema,
  name: UntrustedTextSchema.optional(),
  /** The media type the agent gave (its words: marked, capped). */
  mediaType: UntrustedTextSchema.optional(),
  size: z.number(),
  sha256: z.string(),
  /** Read the bytes here (resources/read). */
  resource: z.string(),
  /** The start of a text artifact kept inline. */
  preview: UntrustedTextSchema.optional(),
});

export const DelegationViewSchema = z.object({
  id: z.string(),
  agent: z.string(),
  status: z.enum(DELEGATION_STATUSES),
  /** Set once settled: only ACCEPTED means the result passed the acceptance policy. */
  outcome: z.object({ kind: z.enum(OUTCOMES), accepted: z.boolean(), reasons: z.array(UntrustedTextSchema) }).optional(),
  /** What the agent (or the acceptance policy) waits for: answer, authorize or review it, naming `requestId`. */
  pending: z
    .object({
      kind: z.enum(['input', 'auth', 'review']),
      requestId: z.string(),
      prompt: UntrustedTextSchema,
      /** For `auth`: the credential names `authorize` may send. */
      credentials: z.array(z.string()).optional(),
    })
    .optional(),
  /** The remote task: its id is the agent's choice (marked, capped); its state one of A2A's, checked. */
  remote: z.object({ taskId: UntrustedTextSchema.optional(), state: z.string().optional() }),
  artifacts: z.array(ArtifactViewSchema),
  /** The agent's direct reply, when it answered without a task. */
  reply: UntrustedTextSchema.optional(),
  /** The whole record (resources/read; subscribe for changes). */
  resource: z.string(),
  /** What can be done next, in Baton's words. */
  next: z.string(),
});
export type DelegationView = z.infer<typeof DelegationViewSchema>;

/** Longest agent-chosen id shown in a field; the whole one is in the record. */
const AGENT_ID_CHARS = 128;

export function nextStep(r: DelegationRecord): string {
  if (r.outcome)
    return r.outcome.kind === 'ACCEPTED'
      ? 'Settled and accepted: read the artifacts through their resources.'
      : `Settled ${r.outcome.kind}: the result was not accepted; see the reasons.`;
  switch (r.pending?.kind) {
    case 'input':
      return `The agent asks for input: call answer with id ${r.id} and requestId ${r.pending.requestId}.`;
    case 'auth':
      return `The agent asks for authentication: call authorize with id ${r.id}, requestId ${r.pending.requestId} and one of the listed credentials.`;
    case 'review':
      return `The result waits for review: call review with id ${r.id}, requestId ${r.pending.requestId} and accept or reject.`;
    default:
      return `Still working: call show_delegation with id ${r.id} (waitSeconds to wait), or subscribe to ${delegationUri(r.id)}.`;
  }
}

export function delegationView(r: DelegationRecord, maxChars: number): DelegationView {
  const record = delegationUri(r.id);
  return {
    id: r.id,
    agent: r.agent.name,
    status: r.status,
    ...(r.outcome
      ? {
          outcome: {
            kind: r.outcome.kind,
            accepted: r.outcome.kind === 'ACCEPTED',
            reasons: r.outcome.reasons.slice(0, 20).map((reason) => untrusted(reason, maxChars, record)),
          },
        }
      : {}),
    ...(r.pending
      ? {
          pending: {
            kind: r.pending.kind,
            requestId: r.pending.requestId,
            prompt: untrusted(textOfParts(r.pending.prompt), maxChars, record),
            ...(r.pending.credentials ? { credentials: r.pending.credentials } : {}),
          },
        }
      : {}),
    remote: {
      ...(r.remote.taskId ? { taskId: untrusted(r.remote.taskId, AGENT_ID_CHARS, record) } : {}),
      ...(r.remote.state ? { state: r.remote.state } : {}),
    },
    artifacts: r.artifacts.map((a) => {
      const resource = artifactUri(r.id, a.sha256);
      return {
        artifactId: untrusted(a.artifactId, AGENT_ID_CHARS, record),
        ...(a.name ? { name: untrusted(a.name, 200) } : {}),
        ...(a.mediaType ? { mediaType: untrusted(a.mediaType, 100) } : {}),
        size: a.size,
        sha256: a.sha256,
        resource,
        ...(a.parts && (!a.mediaType || isTextMediaType(a.mediaType))
          ? { preview: untrusted(textOfParts(a.parts), maxChars, resource) }
          : {}),
      };
    }),
    ...(r.reply ? { reply: untrusted(textOfParts(r.reply.parts), maxChars, record) } : {}),
    resource: record,
    next: nextStep(r),
  };
}
