/**
 * What each operation of Baton's Nexus service takes, checked with zod, and the JSON Schema file that
 * callers in other languages generate their types from (`npm run nexus-schema` writes it from these).
 */
import { z } from 'zod';
import {
  AnswerBodySchema,
  AuthorizeBodySchema,
  CancelBodySchema,
  ChosenIdSchema,
  hasContent,
  needsContent,
  ReviewBodySchema,
  startFields,
} from '../http/api-schemas';

/**
 * A delegation as the caller names it: the id Baton gave it (`<tenant>:<id>`, in the record) or the
 * token of the `delegate` operation that started it (the caller's handle has it).
 */
const delegation = z.string().min(1).max(1_000);

/** The caller's own key for a start: the same key (in the same tenant) is the same delegation or graph. */
const idempotencyKey = ChosenIdSchema.describe(
  'Your key for this work: a second start with the same key (from any caller of your tenant) is the same delegation or graph, not a new one. Default: the Nexus request id, so a retried start is the same one.',
);

export const DelegateInputSchema = z
  .object({ ...startFields, idempotencyKey: idempotencyKey.optional() })
  .strict()
  .refine(hasContent, needsContent);

export const RunGraphInputSchema = z
  .object({
    /** The task graph, as `baton graph run` takes it (docs/graphs.md). */
    graph: z.unknown(),
    idempotencyKey: idempotencyKey.optional(),
  })
  .strict();

const target = { delegation };

export const AnswerInputSchema = z
  .object({ ...target, ...AnswerBodySchema.shape })
  .strict()
  .refine(hasContent, needsContent);
export const AuthorizeInputSchema = z.object({ ...target, ...AuthorizeBodySchema.shape }).strict();
export const ReviewInputSchema = z.object({ ...target, ...ReviewBodySchema.shape }).strict();
export const CancelInputSchema = z.object({ ...target, ...CancelBodySchema.shape }).strict();
export const StatusInputSchema = z
  .object({
    ...target,
    /**
     * Wait (in this request) until the delegation asks something (`pending`: input, auth or review) or
     * settles, or `maxWaitSeconds` pass; then the record as it is. Unset: the record now. A caller
     * workflow waits for a question with this, not with timers.
     */
    waitFor: z.enum(['pending', 'settled']).optional(),
    /** How long `waitFor` waits at most. Default 5; at most 9, inside the server's 10 s for a synchronous operation. */
    maxWaitSeconds: z.number().int().min(1).max(9).optional(),
  })
  .strict();

export type DelegateInput = z.input<typeof DelegateInputSchema>;
export type RunGraphInput = z.input<typeof RunGraphInputSchema>;
export type AnswerInput = z.input<typeof AnswerInputSchema>;
export type AuthorizeInput = z.input<typeof AuthorizeInputSchema>;
export type ReviewInput = z.input<typeof ReviewInputSchema>;
export type CancelInput = z.input<typeof CancelInputSchema>;
export type StatusInput = z.input<typeof StatusInputSchema>;

/** Each operation's input schema, by operation name. */
export const OPERATION_INPUTS = {
  delegate: DelegateInputSchema,
  runGraph: RunGraphInputSchema,
  answer: AnswerInputSchema,
  authorize: AuthorizeInputSchema,
  review: ReviewInputSchema,
  cancel: CancelInputSchema,
  status: StatusInputSchema,
} as const;
