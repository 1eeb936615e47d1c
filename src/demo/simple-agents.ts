/**
 * Small demo agents, one per way a remote task can end, for trying Baton's outcomes by hand
 * (`baton dev` serves them) and for tests:
 * - `message-desk` answers with a direct Message, no task;
 * - `refusing-vendor` refuses the work (REJECTED);
 * - `broken-lab` fails (FAILED) after starting;
 * - `build-investigator` streams progress and its report artifact in chunks, then completes.
 */
import { randomUUID } from 'node:crypto';
import { Message } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { DemoAgentDefinition } from './agent-server';
import { artifactEvent, statusEvent } from './events';
import { executor, openTask, skill } from './kit';

export function messageDesk(): DemoAgentDefinition {
  return {
    name: 'message-desk',
    description: 'Answers questions directly with a Message; never creates a task.',
    skills: skill('answer', 'Answers at once'),
    executor: executor(async (ctx, bus) => {
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({
            messageId: randomUUID(),
            role: 'ROLE_AGENT',
            contextId: ctx.contextId,
            parts: [{ text: 'Our lead time for A1042 parts is 12 working days.', mediaType: 'text/plain' }],
          }),
        ),
      );
      bus.finished();
    }),
  };
}

export function refusingVendor(): DemoAgentDefinition {
  return {
    name: 'refusing-vendor',
    description: 'Refuses every request (REJECTED) with its reason.',
    skills: skill('quote', 'Quotes for custom parts'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_REJECTED', 'We no longer take orders for that product line.'));
      bus.finished();
    }),
  };
}

export function brokenLab(opts: { workMs?: number } = {}): DemoAgentDefinition {
  return {
    name: 'broken-lab',
    description: 'Starts every test, then fails (FAILED) with its reason.',
    skills: skill('lab-test', 'Material tests'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_WORKING', 'Calibrating'));
      await new Promise((r) => setTimeout(r, opts.workMs ?? 200));
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_FAILED', 'Tensile tester offline; no result.'));
      bus.finished();
    }),
  };
}

export function buildInvestigator(opts: { chunks?: number; stepMs?: number } = {}): DemoAgentDefinition {
  const chunks = opts.chunks ?? 4;
  return {
    name: 'build-investigator',
    description: 'Investigates a failed build: streams progress, and its report in chunks (append, lastChunk).',
    streaming: true,
    skills: skill('investigate', 'Finds why a build failed'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      const { taskId, contextId } = ctx;
      const artifactId = `${taskId}-report`;
      for (let i = 1; i <= chunks; i++) {
        bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING', `Reading logs, step ${i} of ${chunks}`));
        await new Promise((r) => setTimeout(r, opts.stepMs ?? 100));
        bus.publish(
          artifactEvent(
            taskId,
            contextId,
            {
              artifactId,
              name: 'report',
              parts: [
                {
                  text: `Finding ${i}: step ${i} of the build log looks ${i === chunks ? 'broken' : 'fine'}.\n`,
                  mediaType: 'text/plain',
                },
              ],
            },
            { append: i > 1, lastChunk: i === chunks },
          ),
        );
      }
      bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED', 'Report ready.'));
      bus.finished();
    }),
  };
}

/**
 * `bulk-archive`: streams one large binary artifact (`archive`, application/octet-stream) in chunks.
 * Chunk i is `chunkBytes` bytes of `chunkByte(i)`, so a test knows the whole content's digest.
 */
export function bulkArchive(opts: {
  chunks: number;
  chunkBytes: number;
  stepMs?: number;
  /** Wait for this (or what it returns, per task) before the first chunk (tests start once someone listens). */
  startWhen?: Promise<void> | (() => Promise<void>);
}): DemoAgentDefinition {
  return {
    name: 'bulk-archive',
    description: 'Exports a large archive as one streamed artifact, in chunks.',
    streaming: true,
    skills: skill('export', 'Exports an archive'),
    executor: executor(async (ctx, bus) => {
      openTask(ctx, bus);
      const { taskId, contextId } = ctx;
      bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING', 'Exporting'));
      await (typeof opts.startWhen === 'function' ? opts.startWhen() : opts.startWhen);
      for (let i = 0; i < opts.chunks; i++) {
        await new Promise((r) => setTimeout(r, opts.stepMs ?? 20));
        const raw = Buffer.alloc(opts.chunkBytes, chunkByte(i)).toString('base64');
        bus.publish(
          artifactEvent(
            taskId,
            contextId,
            { artifactId: `${taskId}-archive`, name: 'archive', parts: [{ raw, mediaType: 'application/octet-stream' }] },
            { append: i > 0, lastChunk: i === opts.chunks - 1 },
          ),
        );
      }
      bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED', 'Archive ready.'));
      bus.finished();
    }),
  };
}

/** The byte chunk i of bulk-archive's artifact is filled with. */
export const chunkByte = (i: number): number => (i * 7 + 1) % 251;
