/**
 * Demo agent `supplier-qa`: a shop asks its supplier to verify an inspection report against an
 * order. The agent creates a task, works for a moment, and completes with a JSON verdict artifact.
 */
import { Task, Message } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { DemoAgentDefinition } from './agent-server';
import { artifactEvent, now, statusEvent } from './events';

export interface SupplierQaOptions {
  /** How long the simulated inspection takes, in ms. Default 300. */
  workMs?: number;
  /** Called with each new task's id (tests count the remote tasks a delegation created). */
  onTaskCreated?: (taskId: string) => void;
  /** Advertise streaming on the card (SubscribeToTask). Default false. */
  streaming?: boolean;
  /** The question asked for the serial number (tests send hostile text). Default: a plain question. */
  question?: string;
}

/** Reads the order, report and serial-number references from the request's text or data parts. */
export function requestedReferences(message: Message): { order?: string; report?: string; serial?: string } {
  const json = Message.toJSON(message) as { parts?: { text?: string; data?: unknown }[] };
  let order: string | undefined;
  let report: string | undefined;
  let serial: string | undefined;
  for (const part of json.parts ?? []) {
    if (part.data && typeof part.data === 'object') {
      const d = part.data as Record<string, unknown>;
      if (typeof d.order === 'string') order ??= d.order;
      if (typeof d.report === 'string') report ??= d.report;
      if (typeof d.serial === 'string') serial ??= d.serial;
    }
    if (typeof part.text === 'string') {
      order ??= /\b[A-Z]\d{4}\b/.exec(part.text)?.[0];
      report ??= /\binspection-\d+\b/.exec(part.text)?.[0];
      serial ??= /\bSN-[A-Z0-9-]+\b/.exec(part.text)?.[0];
    }
  }
  return { order, report, serial };
}

class SupplierQaExecutor implements AgentExecutor {
  constructor(
    private readonly workMs: number,
    private readonly onTaskCreated?: (taskId: string) => void,
    private readonly question = 'What is the serial number of the inspected product (like SN-4471)?',
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    if (!ctx.task) this.onTaskCreated?.(taskId);
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
    bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING', 'Inspecting the report'));
    // A follow-up turn carries only the answer: the order and report come from the first message.
    const first = ctx.task?.history?.[0] ? requestedReferences(ctx.task.history[0]) : {};
    const latest = requestedReferences(ctx.userMessage);
    const order = latest.order ?? first.order;
    const report = latest.report ?? first.report;
    const serial = latest.serial ?? first.serial;
    if (!order || !report) {
      bus.publish(
        statusEvent(taskId, contextId, 'TASK_STATE_REJECTED', 'Name an order (like A1042) and an inspection report (like inspection-92).'),
      );
      bus.finished();
      return;
    }
    if (!serial) {
      bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_INPUT_REQUIRED', this.question));
      bus.finished();
      return;
    }
    await new Promise((r) => setTimeout(r, this.workMs));
    const verdict = {
      order,
      report,
      serial,
      verdict: 'pass',
      checks: [
        { name: 'dimensions', result: 'pass' },
        { name: 'surface finish', result: 'pass' },
      ],
    };
    bus.publish(
      artifactEvent(taskId, contextId, {
        artifactId: `${taskId}-verdict`,
        name: 'verdict',
        parts: [{ data: verdict, mediaType: 'application/json' }],
      }),
    );
    bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED', `Report ${report} matches order ${order}.`));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(statusEvent(taskId, '', 'TASK_STATE_CANCELED'));
    bus.finished();
  }
}

export function supplierQa(opts: SupplierQaOptions = {}): DemoAgentDefinition {
  return {
    name: 'supplier-qa',
    description:
      'Verifies inspection reports against purchase orders and answers with a JSON verdict; asks for the product serial number when the request lacks one.',
    skills: [
      {
        id: 'verify-inspection',
        name: 'Verify inspection report',
        description: 'Checks an inspection report against an order and returns a verdict artifact.',
        tags: ['quality', 'supplier'],
        examples: ['Verify inspection report inspection-92 against order A1042'],
      },
    ],
    executor: new SupplierQaExecutor(opts.workMs ?? 300, opts.onTaskCreated, opts.question),
    streaming: opts.streaming ?? false,
  };
}
