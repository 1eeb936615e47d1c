/**
 * A2A 1.0 wire shapes as plain, workflow-safe types.
 *
 * Everything an agent sends us is parsed with these schemas before it reaches a workflow: the SDK's
 * ts-proto objects (numeric enums, Buffers) never enter Temporal payloads. A schema failure is a
 * protocol error, never a success.
 */
import { z } from 'zod';

/** The task states a valid agent may report. `TASK_STATE_UNSPECIFIED` is deliberately absent. */
export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export const TaskStateSchema = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskStateSchema>;

const metadata = z.record(z.string(), z.unknown()).optional();

/**
 * Longest protocol id (task, context, message, artifact) Baton takes, in UTF-16 units. Ids are opaque
 * and usually UUIDs; one much longer is a protocol error of whoever sent it, never a value written
 * into history, a search attribute (Temporal refuses a keyword over 2,048 bytes) or a log line.
 */
export const MAX_PROTOCOL_ID = 512;

const protocolId = z.string().min(1).max(MAX_PROTOCOL_ID, `is longer than ${MAX_PROTOCOL_ID} characters`);
const optionalId = z.string().max(MAX_PROTOCOL_ID, `is longer than ${MAX_PROTOCOL_ID} characters`).optional();

const partCommon = {
  metadata,
  filename: z.string().max(1024).optional(),
  mediaType: z.string().max(255).optional(),
};

/** A Part carries exactly one of `text`, `raw`, `url`, `data`; several at once is a protocol error. */
export const PartSchema = z
  .object({
    ...partCommon,
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
  })
  .superRefine((part, ctx) => {
    const present = (['text', 'raw', 'url', 'data'] as const).filter((k) => part[k] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          present.length === 0
            ? 'part has no content (text, raw, url or data)'
            : `part has several contents at once: ${present.join(', ')}`,
      });
    }
  });
export type Part = z.infer<typeof PartSchema>;

export const RoleSchema = z.enum(['ROLE_USER', 'ROLE_AGENT']);

export const MessageSchema = z.object({
  messageId: protocolId,
  contextId: optionalId,
  taskId: optionalId,
  role: RoleSchema,
  parts: z.array(PartSchema).min(1),
  metadata,
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(protocolId).max(64).optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export const ArtifactSchema = z.object({
  artifactId: protocolId,
  name: z.string().max(1024).optional(),
  description: z.string().optional(),
  parts: z.array(PartSchema).min(1),
  metadata,
  extensions: z.array(z.string()).optional(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

export const TaskStatusSchema = z.object({
  state: TaskStateSchema,
  message: MessageSchema.optional(),
  timestamp: z.string().optional(),
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const TaskSchema = z.object({
  id: protocolId,
  contextId: protocolId,
  status: TaskStatusSchema,
  artifacts: z.array(ArtifactSchema).optional(),
  history: z.array(MessageSchema).optional(),
  metadata,
});
export type Task = z.infer<typeof TaskSchema>;

/** `SendMessageResponse`: exactly one of `task` or `message`. */
export const SendMessageResultSchema = z.union([z.object({ task: TaskSchema }).strict(), z.object({ message: MessageSchema }).strict()]);
export type SendMessageResult = z.infer<typeof SendMessageResultSchema>;

/** `TaskStatusUpdateEvent`: a state change of a task we follow. */
export const StatusUpdateSchema = z.object({
  taskId: protocolId,
  contextId: protocolId,
  status: TaskStatusSchema,
  metadata,
});
export type StatusUpdate = z.infer<typeof StatusUpdateSchema>;

/** `TaskArtifactUpdateEvent`: a whole artifact, or a chunk of one when `append` is true. */
export const ArtifactUpdateSchema = z.object({
  taskId: protocolId,
  contextId: protocolId,
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata,
});
export type ArtifactUpdate = z.infer<typeof ArtifactUpdateSchema>;

/** `StreamResponse`: exactly one of task, message, statusUpdate, artifactUpdate (also a push body). */
export const StreamEventSchema = z.union([
  z.object({ task: TaskSchema }).strict(),
  z.object({ message: MessageSchema }).strict(),
  z.object({ statusUpdate: StatusUpdateSchema }).strict(),
  z.object({ artifactUpdate: ArtifactUpdateSchema }).strict(),
]);
export type StreamEvent = z.infer<typeof StreamEventSchema>;
