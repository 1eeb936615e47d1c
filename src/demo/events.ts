/**
 * Small builders for the events demo agents publish, from wire-shaped JSON.
 */
import { randomUUID } from 'node:crypto';
import { TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';

export const now = (): string => new Date().toISOString();

/** A status update, with the agent's text as its message when given. */
export function statusEvent(taskId: string, contextId: string, state: string, text?: string) {
  return AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId,
      contextId,
      status: {
        state,
        timestamp: now(),
        ...(text
          ? { message: { messageId: randomUUID(), role: 'ROLE_AGENT', taskId, contextId, parts: [{ text, mediaType: 'text/plain' }] } }
          : {}),
      },
    }),
  );
}

/**
 * An artifact update: the whole artifact (`lastChunk`, the default), or one chunk of it (`append` adds
 * to what came before, `lastChunk` ends it).
 */
export function artifactEvent(
  taskId: string,
  contextId: string,
  artifact: { artifactId: string; name?: string; parts: unknown[] },
  chunk: { append?: boolean; lastChunk?: boolean } = { lastChunk: true },
) {
  return AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, ...chunk, artifact }));
}
