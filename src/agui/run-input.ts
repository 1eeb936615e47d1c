/**
 * An AG-UI `RunAgentInput` as Baton takes it: bounded (ids, messages, resume entries), everything it
 * does not use passed over (tools, context, state); and the answers a resume entry may carry.
 */
import { z } from 'zod';
import { BatonError } from '../shared/baton-error';
import { objectOf } from '../shared/plain-object';
import type { Part } from '../shared/a2a-types';
import type { InterruptKind } from '../shared/agui-mapping';

/**
 * A message of the conversation. Baton reads only a user message's text (a string, or its `text`
 * parts); any other content (a tool result, an assistant's null, an image part) is passed over.
 */
const MessageIn = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.string().min(1).max(20),
  content: z.unknown().optional(),
});

const ResumeIn = z.looseObject({
  interruptId: z.string().min(1).max(600),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

/** What Baton reads under `forwardedProps.baton` (any other forwarded value is the front end's own). */
const BatonProps = z
  .object({
    /** A graph spec: starts the thread's graph (`/agui/graphs`). */
    graph: z.unknown().optional(),
    /** Cancel the thread's work: the only way a front end cancels (an abort only stops watching). */
    cancel: z.union([z.literal(true), z.object({ reason: z.string().max(500).optional() }).strict()]).optional(),
  })
  .strict();
export type BatonProps = z.infer<typeof BatonProps>;

export const RunInputSchema = z
  .looseObject({
    threadId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[\x20-\x7e]+$/, 'printable ASCII'),
    runId: z.string().min(1).max(200),
    messages: z.array(MessageIn).max(500),
    resume: z.array(ResumeIn).max(16).optional(),
    /** Any JSON value (AG-UI passes it through); only its `baton` key, when it is an object, is Baton's. */
    forwardedProps: z.unknown().optional(),
  })
  .superRefine((input, ctx) => {
    const baton = objectOf(input.forwardedProps)?.baton;
    if (baton === undefined) return;
    const parsed = BatonProps.safeParse(baton);
    for (const issue of parsed.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', path: ['forwardedProps', 'baton', ...issue.path.map(String)], message: issue.message });
  });
export type RunInput = z.infer<typeof RunInputSchema>;
export type ResumeEntry = NonNullable<RunInput['resume']>[number];

/** What the input asks of Baton under `forwardedProps.baton` (checked by RunInputSchema). */
export function batonPropsOf(input: RunInput): BatonProps | undefined {
  return objectOf(objectOf(input.forwardedProps)?.baton) as BatonProps | undefined;
}

/** The text of the last user message: what a new thread asks for, or undefined. */
export function requestOf(input: RunInput): { messageId: string; text: string } | undefined {
  const last = [...input.messages].reverse().find((m) => m.role === 'user');
  if (!last) return undefined;
  const content = last.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .map((p: unknown) => {
              const part = objectOf(p);
              return part?.type === 'text' && typeof part.text === 'string' ? part.text : '';
            })
            .filter(Boolean)
            .join('\n')
        : '';
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
