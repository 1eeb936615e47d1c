/**
 * What every small demo agent needs: an executor from one function, the opening task event, a skill.
 */
import { Message, Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { now, statusEvent } from './events';

export type Body = (ctx: RequestContext, bus: ExecutionEventBus) => Promise<void>;

/** An executor that runs `body` and answers CancelTask with CANCELED. */
export function executor(body: Body): AgentExecutor {
  return {
    execute: body,
    async cancelTask(taskId, bus) {
      bus.publish(statusEvent(taskId, '', 'TASK_STATE_CANCELED'));
      bus.finished();
    },
  };
}

/** Publishes the task (new or continued); every execute must begin with it. */
export function openTask(ctx: RequestContext, bus: ExecutionEventBus): void {
  bus.publish(
    AgentEvent.task(
      ctx.task ??
        Task.fromJSON({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
          history: [Message.toJSON(ctx.userMessage)],
        }),
    ),
  );
}

export const skill = (id: string, description: string) => [{ id, name: id, description, tags: ['demo'] }];

/** The text of a message's text parts, joined. */
export function textOf(message: Message): string {
  const json = Message.toJSON(message) as { parts?: { text?: string }[] };
  return (json.parts ?? []).flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])).join(' ');
}

/** The values of a message's data parts. */
export function dataOf(message: Message): unknown[] {
  const json = Message.toJSON(message) as { parts?: { data?: unknown }[] };
  return (json.parts ?? []).flatMap((p) => (p.data !== undefined ? [p.data] : []));
}
