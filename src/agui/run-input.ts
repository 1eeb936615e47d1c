/**
 * An AG-UI `RunAgentInput` as Baton takes it: bounded (ids, messages, resume entries), everything it
 * does not use passed over (tools, context, state); and the answers a resume entry may carry.
 */
import { z } from 'zod';
import { BatonError } from '../shared/baton-error';
import type { Part } from '../shared/a2a-types';
import type { InterruptKind } from '../shared/agui-mapping';

const ContentPart = z.looseObject({ type: z.string().max(40), text: z.string().max(100_000).optional() });

const MessageIn = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.string().min(1).max(20),
  content: z.union([z.string().max(100_000), z.array(ContentPart).max(64)]).optional(),
});

const ResumeIn = z.looseObject({
  interruptId: z.string().min(1).max(600),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

/** What Baton reads under `forwardedProps.baton`. */
const BatonProps = z
  .object({
    /** A graph spec: starts the thread's graph (`/agui/graphs`). */
    graph: z.unknown().optional(),
    /** Cancel the thread's work: the only way a front end cancels (an abort only stops watching). */
    cancel: z.union([z.literal(true), z.object({ reason: z.string().max(500).optional() }).strict()]).optional(),
  })
  .strict();

export const RunInputSchema = z.looseObject({
  threadId: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x20-\x7e]+$/, 'printable ASCII'),
  runId: z.string().min(1).max(200),
  messages: z.array(MessageIn).max(500),
  resume: z.array(ResumeIn).max(16).optional(),
  forwardedProps: z.looseObject({ baton: BatonProps.optional() }).optional(),
});
export type RunInput = z.infer<typeof RunInputSchema>;
export type ResumeEntry = NonNullable<RunInput['resume']>[number];

/** The text of the last user message: what a new thread asks for, or undefined. */
export function requestOf(input: RunInput): { messageId: string; text: string } | undefined {
  const last = [...input.messages].reverse().find((m) => m.role === 'user');
  if (!last) return undefined;
  const text = typeof last.content === 'string' ? last.content : (last.content ?? []).map((p) => p.text ?? '').join('\n');
  return text.trim() ? { messageId: last.id, text } : undefined;
}

/** What a resolved resume entry answers, by the kind of interrupt it names; InvalidRequest when it does not fit. */
export type Answer =
  | { kind: 'input'; parts: Part[] }
  | { kind: 'auth'; credential: string }
  | { kind: 'review'; decision: 'accept' | 'reject'; reason?: string };

const InputPayload = z.union([z.string().min(1).max(100_000), z.object({ text: z.string().min(1).max(100_000) }).strict()]);
const AuthPayload = z.object({ credential: z.string().min(1).max(100) }).strict();
const ReviewPayload = z.object({ decision: z.enum(['accept', 'reject']), reason: z.string().max(500).optional() }).strict();

export function answerOf(kind: InterruptKind, entry: ResumeEntry): Answer {
  const bad = (what: string): never => {
    throw new BatonError('InvalidRequest', `resume for interrupt ${entry.interruptId}: the payload is ${what}`);
  };
  if (kind === 'auth') {
    const p = AuthPayload.safeParse(entry.payload);
    return p.success ? { kind, credential: p.data.credential } : bad('not {"credential": "<name>"}');
  }
  if (kind === 'review') {
    const p = ReviewPayload.safeParse(entry.payload);
    return p.success
      ? { kind, decision: p.data.decision, ...(p.data.reason ? { reason: p.data.reason } : {}) }
      : bad('not {"decision": "accept" | "reject", "reason"?: "..."}');
  }
  const p = InputPayload.safeParse(entry.payload);
  return p.success ? { kind, parts: [{ text: typeof p.data === 'string' ? p.data : p.data.text }] } : bad('not a text or {"text": "..."}');
}
