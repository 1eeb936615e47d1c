/**
 * A test agent that keeps every message it is sent, for the data-use tests (docs/data-use.md).
 */
import { Message } from '@a2a-js/sdk';
import type { DemoAgentDefinition } from '../../src/demo/agent-server';
import { artifactEvent, statusEvent } from '../../src/demo/events';
import { executor, openTask, skill, textOf } from '../../src/demo/kit';
import { DATA_USE_EXTENSION } from '../../src/shared/data-use';

export type Received = { parts: { text?: string; metadata?: Record<string, unknown> }[]; extensions?: string[]; header?: string[] };

/**
 * An agent that keeps every message it is sent (and the extensions the call asked for); "ask" first
 * asks a question, anything else completes. `declaring`: its card declares the data-use extension,
 * and it activates the extension when a call asks for it.
 */
export function recordingDesk(received: Received[], declaring = false): DemoAgentDefinition {
  return {
    name: declaring ? 'declaring-desk' : 'recording-desk',
    description: 'Keeps what it is sent',
    skills: skill('keep', 'Keeps what it is sent'),
    ...(declaring ? { extensions: [{ uri: DATA_USE_EXTENSION, description: 'Baton data-use terms' }] } : {}),
    executor: executor(async (ctx, bus) => {
      const asked = ctx.context.requestedExtensions ? [...ctx.context.requestedExtensions] : [];
      received.push({ ...(Message.toJSON(ctx.userMessage) as Received), header: asked });
      if (declaring && asked.includes(DATA_USE_EXTENSION)) ctx.context.addActivatedExtension(DATA_USE_EXTENSION);
      openTask(ctx, bus);
      if (/ask/.test(textOf(ctx.userMessage)) && !ctx.task) {
        bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_INPUT_REQUIRED', 'Which cost centre?'));
      } else {
        // A declaring desk echoes the data use it was sent, part by part.
        const echoed = (Message.toJSON(ctx.userMessage) as Received).parts.map((p) => p.metadata?.[DATA_USE_EXTENSION] ?? null);
        const parts = declaring ? [{ text: 'kept' }, { data: { received: echoed } }] : [{ text: 'kept' }];
        bus.publish(artifactEvent(ctx.taskId, ctx.contextId, { artifactId: `${ctx.taskId}-kept`, name: 'kept', parts }));
        bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED'));
      }
      bus.finished();
    }),
  };
}
