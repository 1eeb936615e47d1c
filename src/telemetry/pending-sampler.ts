/**
 * The inbox size as a gauge: every `every`, one visibility count per kind of request waiting for a
 * person (`baton_pending_requests{kind}`). Visibility, not a counter kept in workflows, so the figure
 * is right after restarts and with many workers (each reports the namespace's figure: take the max).
 */
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { recordPendingRequests } from './metrics';

/** The statuses that wait for a person, by the `kind` label they get. */
export const PENDING_KINDS = { input: 'WAITING_INPUT', auth: 'WAITING_AUTH', review: 'WAITING_REVIEW' } as const;

/** Counts now, then every `everyMs`; the returned function stops it. */
export function startPendingSampler(client: Client, everyMs: number, logger: Logger): () => void {
  let stopped = false;
  let failing = false;
  const sample = async (): Promise<void> => {
    try {
      for (const [kind, status] of Object.entries(PENDING_KINDS)) {
        const { count } = await client.workflow.count(`BatonStatus = "${status}" AND ExecutionStatus = "Running"`);
        if (!stopped) recordPendingRequests(kind, count);
      }
      if (failing) logger.info('pending requests counted again');
      failing = false;
    } catch (err) {
      // A server that is down is the worker's own problem to report; say it once here.
      if (!failing) logger.warn({ err: (err as Error).message }, 'pending requests could not be counted; the gauge keeps its last value');
      failing = true;
    }
  };
  void sample();
  const timer = setInterval(() => void sample(), everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
