/**
 * An application's own workflow served as an A2A agent (`serve.services.<name>.workflow`): what it is
 * started with, what it shows the caller, and how the caller's next message reaches it. Workflow-safe.
 */
import { z } from 'zod';
import { PartSchema, type Part, type TaskState } from './a2a-types';
import { CallerSchema, type Caller } from './delegation-types';

/** The one argument a served workflow is started with. */
export interface ServedTaskInput {
  /** The caller's message parts (validated). */
  parts: Part[];
  /** Who asked: a tenant and a user, from the caller's bearer token. */
  caller: Caller;
  /** The service (`serve.services.<name>`). */
  service: string;
  /** The caller's contextId (or one Baton gave the task). */
  contextId: string;
}

/** An artifact a served workflow completes with. */
export interface ServedArtifact {
  artifactId: string;
  name?: string;
  parts: Part[];
}

/** What a served workflow shows its caller (the `servedTask` Query). */
export interface ServedTaskState {
  state: TaskState;
  /** While INPUT_REQUIRED: what is asked, under the id the answer goes to. */
  question?: { requestId: string; parts: Part[]; askedAt: string };
  /** Once COMPLETED. */
  artifacts: ServedArtifact[];
  /** Once FAILED or REJECTED: why. */
  reasons: string[];
  /** When the state last changed. */
  changedAt?: string;
}

/** The caller's next message, for the question asked (the `servedMessage` Update). */
export const ServedMessageSchema = z
  .object({
    requestId: z.string().min(1).max(300),
    parts: z.array(PartSchema).min(1).max(64),
    caller: CallerSchema,
  })
  .strict();
export type ServedMessage = z.infer<typeof ServedMessageSchema>;
