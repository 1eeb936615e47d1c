/**
 * How often the dev server's history shard may read its task queues (decision 0046). Each shard's
 * readers of the transfer, timer, visibility and outbound queues load new tasks at most 20 times a
 * second by Temporal's default: a cluster of 512 shards can load 10,240 times a second, but the dev
 * server has one shard. Past 20 workflows a second, a new workflow task waits there for the next load,
 * 30 to 50 ms, before any worker can have it. The dev server Baton starts (`baton dev`, the tests, the
 * benchmarks) allows more: a reader still loads only when told of new tasks, so a quiet server reads
 * no more than before.
 */

/** Loads per second per queue of the dev server's one shard (Temporal's default: 20). */
export const HISTORY_QUEUE_READS_PER_SECOND = 100;

/** The dynamic config keys that limit them (Temporal server 1.2x and later). */
export const HISTORY_QUEUE_READ_KEYS = [
  'history.transferProcessorMaxPollRPS',
  'history.timerProcessorMaxPollRPS',
  'history.visibilityProcessorMaxPollRPS',
  'history.outboundProcessorMaxPollRPS',
] as const;

/** The same as `temporal server start-dev` arguments. */
export function historyQueueReadArgs(): string[] {
  return HISTORY_QUEUE_READ_KEYS.flatMap((key) => ['--dynamic-config-value', `${key}=${HISTORY_QUEUE_READS_PER_SECOND}`]);
}
