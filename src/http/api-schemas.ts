/**
 * The HTTP API's request bodies, checked with zod, and the JSON Schemas the OpenAPI document
 * gives for them (generated from the same schemas, so the document cannot drift from the checks).
 */
import { z } from 'zod';
import { GRAPH_NODE_STATES, MAX_GRAPH_PAGE } from '../shared/graph-limits';
import { PartSchema } from '../shared/a2a-types';
import { ContractSchema, CredentialNameSchema, identifier } from '../shared/delegation-types';
import { DataUseSchema } from '../shared/data-use-types';

/** An id a caller chooses for what it starts, so a retried start cannot start it twice. */
export const ChosenIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:@-]+$/, 'may use letters, digits and . _ : @ - only');

/** Work or an answer: plain text, or A2A parts (at least one of the two). */
const content = {
  /** Sent as one text part. */
  text: z.string().min(1).max(100_000).optional(),
  parts: z.array(PartSchema).min(1).max(64).optional(),
};
export const hasContent = (b: { text?: string; parts?: unknown[] }): boolean => b.text !== undefined || b.parts !== undefined;
export const needsContent = { message: 'give text or parts' };

/** What a start names besides the caller's id: the agent, the work, its terms (shared with Nexus's `delegate`). */
export const startFields = {
  agent: identifier,
  ...content,
  policy: z.string().min(1).max(200).optional(),
  contextId: z.string().min(1).max(300).optional(),
  referenceTaskIds: z.array(z.string().min(1).max(300)).max(32).optional(),
  contract: ContractSchema.optional(),
  /**
   * A data label and data-use terms for every part that carries none of its own (a part may carry its
   * own under `metadata["urn:baton-a2a:data-use:v1"]`); data the agent is not cleared for is refused
   * before anything is sent (docs/data-use.md).
   */
  dataUse: DataUseSchema.optional(),
};

export const StartBodySchema = z
  .object({
    ...startFields,
    /**
     * Your own id for it, so a retried POST cannot start it twice (the second answers 409). It is kept
     * within your tenant: the delegation's id is `<tenant>:<id>` (answered, and in Location). Ids
     * starting with `dlg-`, `graph-` or `a2a-` are Baton's. Default: a new `dlg-<uuid>`.
     */
    id: ChosenIdSchema.optional(),
  })
  .strict()
  .refine(hasContent, needsContent);

export const AnswerBodySchema = z
  .object({ requestId: z.string().min(1).max(300), ...content })
  .strict()
  .refine(hasContent, needsContent);

export const AuthorizeBodySchema = z
  .object({
    requestId: z.string().min(1).max(300),
    /** A credential the agent's entry allows, by name (the pending request lists them); its value never passes through the API. */
    credential: CredentialNameSchema,
  })
  .strict();

export const ReviewBodySchema = z
  .object({ requestId: z.string().min(1).max(300), decision: z.enum(['accept', 'reject']), reason: z.string().max(2_000).optional() })
  .strict();

export const CancelBodySchema = z.object({ reason: z.string().max(2_000).optional() }).strict();

export const ListQuerySchema = z
  .object({
    status: z.string().optional(),
    agent: z.string().optional(),
    outcome: z.string().optional(),
    batonVersion: z.string().optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
  })
  .strict();

/** `GET /graphs/{id}`: which page of nodes. */
export const GraphPageQuerySchema = z
  .object({
    offset: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_GRAPH_PAGE).optional(),
    state: z.enum(GRAPH_NODE_STATES).optional(),
  })
  .strict();

/** `GET /graphs`: running or settled graphs, how many. */
export const GraphListQuerySchema = z
  .object({ status: z.enum(['running', 'settled']).optional(), limit: z.coerce.number().int().min(1).max(500).optional() })
  .strict();

/** Text becomes a text part; parts pass as given. */
export function partsOf(body: { text?: string; parts?: z.infer<typeof PartSchema>[] }): z.infer<typeof PartSchema>[] {
  return [...(body.text !== undefined ? [{ text: body.text, mediaType: 'text/plain' }] : []), ...(body.parts ?? [])];
}

/** JSON Schema of a request body, as the OpenAPI document gives it. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}
