/**
 * Demo agents for task graphs: three booking desks for a trip to Helsinki (`skyway-air`,
 * `harbor-hotel` for rooms and its spa, `arctic-tours`) and `image-studio`, which draws a sailboat
 * and redraws it on request ("make the boat red") as a new version of the same `picture` artifact.
 */
import { type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { DemoAgentDefinition } from './agent-server';
import { artifactEvent, statusEvent } from './events';
import { dataOf, openTask, skill, textOf } from './kit';

/** What a test may watch: when each task's work started and ended, by the agent's own clock. */
export interface WorkLog {
  (event: {
    agent: string;
    taskId: string;
    contextId: string;
    phase: 'start' | 'end';
    at: number;
    text: string;
    data: unknown[];
    referenceTaskIds: string[];
  }): void;
}

export interface DemoWorkOptions {
  /** How long the work takes, in ms. Default 300. */
  workMs?: number;
  onWork?: WorkLog;
  /** Awaited after the work, before the answer (tests hold a task open until they are ready). Default none. */
  hold?: (text: string) => Promise<void>;
}

/** An executor whose work can be cancelled mid-way: after CancelTask nothing else is published. */
function cancellable(
  name: string,
  opts: DemoWorkOptions,
  finish: (ctx: RequestContext, bus: ExecutionEventBus, text: string) => void,
): AgentExecutor {
  const cancelled = new Set<string>();
  return {
    async execute(ctx, bus) {
      openTask(ctx, bus);
      const text = textOf(ctx.userMessage);
      const log = (phase: 'start' | 'end'): void =>
        opts.onWork?.({
          agent: name,
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          phase,
          at: Date.now(),
          text,
          data: dataOf(ctx.userMessage),
          referenceTaskIds: ctx.userMessage.referenceTaskIds ?? [],
        });
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_WORKING', 'Working on it'));
      log('start');
      await new Promise((r) => setTimeout(r, opts.workMs ?? 300));
      await opts.hold?.(text);
      log('end');
      if (cancelled.has(ctx.taskId)) return;
      finish(ctx, bus, text);
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      cancelled.add(taskId);
      bus.publish(statusEvent(taskId, '', 'TASK_STATE_CANCELED'));
      bus.finished();
    },
  };
}

function artifact(ctx: RequestContext, name: string, parts: unknown[], suffix = name) {
  return artifactEvent(ctx.taskId, ctx.contextId, { artifactId: `${ctx.taskId}-${suffix}`, name, parts });
}

/** A booking desk: confirms whatever it is asked to book with a `booking` artifact. */
export function bookingDesk(name: string, description: string, opts: DemoWorkOptions = {}): DemoAgentDefinition {
  return {
    name,
    description,
    skills: skill('book', description),
    executor: cancellable(name, opts, (ctx, bus, text) => {
      const booking = {
        desk: name,
        confirmation: `${name.slice(0, 3).toUpperCase()}-${ctx.taskId.slice(0, 6)}`,
        request: text,
        references: ctx.userMessage.referenceTaskIds ?? [],
      };
      bus.publish(artifact(ctx, 'booking', [{ data: booking, mediaType: 'application/json' }]));
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED', `Booked: ${booking.confirmation}`));
    }),
  };
}

export const skywayAir = (opts?: DemoWorkOptions) => bookingDesk('skyway-air', 'Books flights', opts);
export const harborHotel = (opts?: DemoWorkOptions) =>
  bookingDesk('harbor-hotel', 'Books rooms and spa treatments at the Harbor Hotel, Helsinki', opts);
export const arcticTours = (opts?: DemoWorkOptions) => bookingDesk('arctic-tours', 'Books snowmobile tours around Helsinki', opts);

const COLOURS = ['red', 'blue', 'green', 'yellow', 'black', 'white'] as const;

/** Draws a sailboat as SVG; a request naming a colour paints the hull in it. */
export function sailboatSvg(hull: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="160" viewBox="0 0 200 160">` +
    `<rect width="200" height="160" fill="#bfe3ff"/><rect y="120" width="200" height="40" fill="#2b6cb0"/>` +
    `<polygon points="100,20 100,110 45,110" fill="#ffffff" stroke="#333"/><line x1="100" y1="15" x2="100" y2="112" stroke="#333" stroke-width="3"/>` +
    `<polygon points="40,112 160,112 145,132 55,132" fill="${hull}" stroke="#333"/></svg>`
  );
}

export function imageStudio(opts: DemoWorkOptions = {}): DemoAgentDefinition {
  return {
    name: 'image-studio',
    description: 'Draws pictures (SVG); refines the last one on request, as a new version of the same artifact.',
    skills: skill('draw', 'Draws and redraws pictures'),
    executor: cancellable('image-studio', opts, (ctx, bus, text) => {
      const hull = COLOURS.find((c) => new RegExp(`\\b${c}\\b`, 'i').test(text)) ?? 'saddlebrown';
      const svg = sailboatSvg(hull);
      bus.publish(
        artifact(ctx, 'picture', [{ raw: Buffer.from(svg).toString('base64'), mediaType: 'image/svg+xml', filename: 'sailboat.svg' }]),
      );
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, 'TASK_STATE_COMPLETED', `Drew a sailboat with a ${hull} hull.`));
    }),
  };
}
