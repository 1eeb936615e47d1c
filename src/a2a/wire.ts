/**
 * The boundary: SDK objects become wire JSON, wire JSON is validated into plain shared types.
 * Anything that does not validate is an `InvalidAgentResponse`, never a success.
 */
import {
  Message as SdkMessage,
  StreamResponse as SdkStreamResponse,
  Task as SdkTask,
  type SendMessageResult as SdkSendResult,
} from '@a2a-js/sdk';
import type { z } from 'zod';
import { MessageSchema, StreamEventSchema, TaskSchema, type Message, type Part, type StreamEvent, type Task } from '../shared/a2a-types';
import { FailureType } from '../shared/failure-types';
import { failure } from './errors';
import { MAX_NESTING, nestsDeeperThan } from '../shared/nesting';

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

/** The SDK's JSON of an object it decoded; its conversions recurse, so data nested without end is a protocol error. */
function jsonOf(toJson: () => unknown, what: string): unknown {
  try {
    return toJson();
  } catch (err) {
    if (err instanceof RangeError)
      throw failure(FailureType.INVALID_AGENT_RESPONSE, `invalid ${what} from agent: its data nests too deep to read`);
    throw err;
  }
}

function parse<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  if (nestsDeeperThan(json))
    throw failure(FailureType.INVALID_AGENT_RESPONSE, `invalid ${what} from agent: its data nests deeper than ${MAX_NESTING} levels`);
  const result = schema.safeParse(json);
  if (!result.success) throw failure(FailureType.INVALID_AGENT_RESPONSE, `invalid ${what} from agent: ${describe(result.error)}`);
  return result.data;
}

export function taskFromSdk(task: SdkTask): Task {
  return parse(
    TaskSchema,
    jsonOf(() => SdkTask.toJSON(task), 'Task'),
    'Task',
  );
}

export function messageFromSdk(message: SdkMessage): Message {
  return parse(
    MessageSchema,
    jsonOf(() => SdkMessage.toJSON(message), 'Message'),
    'Message',
  );
}

/** One stream event (or push body): exactly one member, each validated. */
export function streamEventFromSdk(event: SdkStreamResponse): StreamEvent {
  return parse(
    StreamEventSchema,
    jsonOf(() => SdkStreamResponse.toJSON(event), 'stream event'),
    'stream event',
  );
}

export type SendResult = { kind: 'task'; task: Task } | { kind: 'message'; message: Message };

/** `sendMessage` gives back an unwrapped Message or Task; tell them apart and validate. */
export function sendResultFromSdk(result: SdkSendResult): SendResult {
  if (result && typeof result === 'object' && 'status' in result) return { kind: 'task', task: taskFromSdk(result) };
  if (result && typeof result === 'object' && 'messageId' in result) return { kind: 'message', message: messageFromSdk(result) };
  throw failure(FailureType.INVALID_AGENT_RESPONSE, 'agent answered SendMessage with neither a Task nor a Message');
}

/** Builds the SDK message for one of our turns from plain parts. */
export function userMessageToSdk(input: {
  messageId: string;
  parts: Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
  extensions?: string[];
}): SdkMessage {
  return SdkMessage.fromJSON({
    messageId: input.messageId,
    role: 'ROLE_USER',
    parts: input.parts,
    contextId: input.contextId ?? '',
    taskId: input.taskId ?? '',
    referenceTaskIds: input.referenceTaskIds ?? [],
    ...(input.extensions?.length ? { extensions: input.extensions } : {}),
  });
}
