/**
 * The schemas of Baton's data-use extension (docs/data-use.md): a label's name, data-use terms, and
 * what a part carries. Workflow code reaches them through `dataUseSchemas()` (schemas-on-demand), so a
 * delegation whose parts carry no data use never builds them.
 */
import { z } from 'zod';
import { DurationSchema } from './delegation-types';

const LABEL = /^[a-z0-9][a-z0-9-]*$/;
/** A label's name: lower-case letters, digits and -, at most 64. */
export const LabelNameSchema = z.string().min(1).max(64).regex(LABEL, 'must be a label name (lower-case letters, digits and -)');

/** What the receiving agent may do with the data beyond the task it is sent for. */
export const FORWARDING = ['none', 'listed-agents', 'any'] as const;
export type Forwarding = (typeof FORWARDING)[number];

/**
 * Data-use terms: why the data is given, how long it may be kept, to whom it may be passed on and
 * what may be done with it. Every field is optional; terms say nothing about what they leave out.
 */
export const DataTermsSchema = z
  .object({
    /** Why the data is given, in words (at most 200 characters). */
    purpose: z.string().min(1).max(200).optional(),
    /** How long the receiver may keep it (a duration such as 30d). */
    retention: DurationSchema.optional(),
    /** Whether the receiver may pass it on: to nobody, only to the agents listed, or to any agent. */
    forwarding: z.enum(FORWARDING).optional(),
    /** With `forwarding: listed-agents`: the agents it may go to, by registry name or card URL. */
    agents: z.array(z.string().min(1).max(2048)).min(1).max(32).optional(),
    /** What the receiver may do with it (for example `summarize`, `translate`); at most 16 names. */
    actions: z
      .array(
        z
          .string()
          .min(1)
          .max(64)
          .regex(/^[a-z][a-z0-9-]*$/, 'must be an action name (lower-case letters, digits and -)'),
      )
      .min(1)
      .max(16)
      .optional(),
  })
  .strict()
  .superRefine((terms, ctx) => {
    if (terms.forwarding === 'listed-agents' && !terms.agents)
      ctx.addIssue({ code: 'custom', path: ['agents'], message: 'forwarding: listed-agents needs the agents it lists' });
    if (terms.agents && terms.forwarding !== 'listed-agents')
      ctx.addIssue({ code: 'custom', path: ['agents'], message: 'agents are listed only with forwarding: listed-agents' });
  });
export type DataTerms = z.infer<typeof DataTermsSchema>;

/** A part's label and terms, as it carries them under `metadata[DATA_USE_EXTENSION]`. */
export const DataUseSchema = z.object({ label: LabelNameSchema.optional(), terms: DataTermsSchema.optional() }).strict();
export type DataUse = z.infer<typeof DataUseSchema>;
