/**
 * Demo agent `portal-gate`: answers only once it has a credential for its (pretend) supplier portal.
 * The first turn ends in AUTH_REQUIRED; a follow-up turn carrying `{ credential }` as a data part
 * completes the task when the credential is right, and asks again when it is not.
 */
import { Message, Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { DemoAgentDefinition } from './agent-server';
import { artifactEvent, now, statusEvent } from './events';

class PortalGateExecutor implements AgentExecutor {
  constructor(private readonly expected: string) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    bus.publish(
      AgentEvent.task(
        ctx.task ??
          Task.fromJSON({
            id: taskId,
            contextId,
            status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
            history: [Message.toJSON(ctx.userMessage)],
          }),
      ),
    );
    const parts = (Message.toJSON(ctx.userMessage) as { parts?: { data?: { credential?: unknown } }[] }).parts ?? [];
    const credential = parts.find((p) => p.data && typeof p.data.credential === 'string')?.data?.credential;
    if (credential !== this.expected) {
      bus.publish(
        statusEvent(
          taskId,
          contextId,
          'TASK_STATE_AUTH_REQUIRED',
          ctx.task ? 'That portal token was not accepted; send another.' : 'Send a supplier-portal token to continue.',
        ),
      );
      bus.finished();
      return;
    }
    bus.publish(
      artifactEvent(taskId, contextId, {
        artifactId: `${taskId}-stock`,
        name: 'stock',
        parts: [{ data: { sku: 'BOLT-M8', onHand: 1200 }, mediaType: 'application/json' }],
      }),
    );
    bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(statusEvent(taskId, '', 'TASK_STATE_CANCELED'));
    bus.finished();
  }
}

/** `expectedToken`: the portal token the agent accepts (demo default `portal-demo-token`). */
export function portalGate(expectedToken = 'portal-demo-token'): DemoAgentDefinition {
  return {
    name: 'portal-gate',
    description: 'Reports stock levels from a supplier portal; asks for a portal token first (AUTH_REQUIRED).',
    skills: [{ id: 'stock-level', name: 'Stock level', description: 'Stock on hand for a SKU', tags: ['stock'] }],
    executor: new PortalGateExecutor(expectedToken),
    // The worker sends the value of PORTAL_TOKEN when an authorize names `portal`.
    registry: { credentials: { portal: { fromEnv: 'PORTAL_TOKEN' } } },
  };
}
